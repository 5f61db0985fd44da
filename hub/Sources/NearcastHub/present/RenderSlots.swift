import NIOConcurrencyHelpers

/// At most `count` deck renders at once (`decks.rendersAtOnce`); the others wait their turn in
/// the order they came, each for a bounded time, and leave the queue when their upload is
/// abandoned. A render is two poppler processes; more of them at once than the cores can carry
/// would take the CPU from the requests the hub is there to answer.
final class RenderSlots: Sendable {
    /// One upload waiting for a slot.
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var free: Int
        var waiting: [Waiter] = []
        var lastID: UInt64 = 0
    }

    private let state: NIOLockedValueBox<State>

    init(_ count: Int) {
        state = NIOLockedValueBox(State(free: max(1, count)))
    }

    /// Uploads waiting for a slot now (for tests and the log).
    var waitingCount: Int { state.withLockedValue { $0.waiting.count } }

    /// True with a slot held (give it back with `release()`), false when none came free within
    /// `patience`; throws `CancellationError` when the task is cancelled while waiting.
    func acquire(within patience: Duration) async throws -> Bool {
        let id = state.withLockedValue { state in
            state.lastID += 1
            return state.lastID
        }
        let timer = Task {
            do { try await Task.sleep(for: patience) } catch { return }
            self.giveUp(id)
        }
        defer { timer.cancel() }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = state.withLockedValue { state in
                    // Checked under the lock: a cancellation that came before this point found
                    // no waiter to remove, so it is seen here instead.
                    if Task.isCancelled { return false }
                    if state.free > 0 {
                        state.free -= 1
                        return true
                    }
                    state.waiting.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            giveUp(id)
        }
        if Task.isCancelled {
            if granted { release() }
            throw CancellationError()
        }
        return granted
    }

    /// Gives a slot back: to the longest waiter, or to the pool.
    func release() {
        let next: Waiter? = state.withLockedValue { state in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }

    /// A waiter's patience ran out, or its task was cancelled: it leaves the queue, unserved.
    private func giveUp(_ id: UInt64) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}
