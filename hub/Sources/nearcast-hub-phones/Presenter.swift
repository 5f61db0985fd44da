#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore

/// The presenter: holds the show's stream with the secret key (in `X-Api-Key`, as the presenter's
/// page does), where the hub sends the follower count, the code on the screen and the reactions
/// batches; and turns the pages (`PUT /v1/shows/BEACON`).
struct Presenter: Sendable {
    let bench: BenchContext

    /// Opens the presenter's stream and waits for its first `show` event (the code is known then).
    func start() async throws {
        let opened = Once(bench.group.next().makePromise(of: Void.self))
        let channel = try await EventStream.open("/v1/shows/\(bench.room.beacon)/events", headers: [("X-Api-Key", bench.room.secretKey)],
                                                 at: bench.entry, from: nil, group: bench.group,
                                                 listener: PresenterListener(bench: bench, firstShow: opened))
        bench.streams.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
        channel.closeFuture.whenComplete { _ in opened.fail(ConnectionFailure(reason: "the presenter's stream closed")) }
        try await opened.futureResult.get()
    }

    /// Turns to `page`, recording when the PUT went and what it answered.
    func turn(to page: Int, on connection: HTTPConnection) async {
        struct Body: Encodable { var deck: String; var page: Int }
        let body = try! JSONEncoder().encode(Body(deck: bench.room.deck, page: page))
        let sentNs = Clocks.monotonicNs()
        var status = 0
        do {
            status = try await connection.send(.PUT, "/v1/shows/\(bench.room.beacon)", headers: [("X-Api-Key", bench.room.secretKey)],
                                               body: ByteBuffer(bytes: body)).status
        } catch {
            bench.recorder.update { $0.connectionErrors["the presenter's PUT: \(ConnectionFailure.from(error).reason)", default: 0] += 1 }
        }
        let answeredNs = Clocks.monotonicNs()
        bench.recorder.update { $0.turns.append((page, sentNs, answeredNs, status)) }
    }
}

/// The presenter's stream: the code and the follower count from its `show` events, and every
/// reaction drawn in its `reactions` batches with the wall time its bytes were read.
struct PresenterListener: EventStreamListener {
    let bench: BenchContext
    let firstShow: Once

    func opened(status: Int, message: String) {
        guard status != 200 else { return }
        firstShow.fail(UsageError("the presenter's stream: HTTP \(status) \(message)"))
    }

    func received(_ event: ServerSentEvent, arrivalNs: UInt64) {
        let arrivedMs = Clocks.wallMs()
        switch event.name {
        case "show":
            guard let show = try? JSONDecoder().decode(ShowSummary.self, from: Data(buffer: event.data)) else { return }
            bench.code.withLockedValue { $0 = show.code }
            bench.recorder.update { $0.presenterFollowers = show.followers }
            firstShow.succeed()
        case "reactions":
            struct Batch: Decodable {
                struct Reaction: Decodable { var value: String; var time: Double }
                var reactions: [Reaction]
            }
            guard let batch = try? JSONDecoder().decode(Batch.self, from: Data(buffer: event.data)) else { return }
            bench.recorder.update { state in
                for reaction in batch.reactions {
                    state.drawn.append(.init(value: reaction.value, admittedMs: reaction.time, arrivedMs: arrivedMs))
                }
            }
        default:
            break
        }
    }

    func closed(status: Int) {}
}

/// A promise fulfilled by the first of several callers (a stream's first event, its refusal, its
/// end), where NIO would trap on a second.
final class Once: Sendable {
    private let promise: NIOLockedValueBox<EventLoopPromise<Void>?>
    let futureResult: EventLoopFuture<Void>

    init(_ promise: EventLoopPromise<Void>) {
        self.promise = NIOLockedValueBox(promise)
        futureResult = promise.futureResult
    }

    func succeed() { take()?.succeed() }
    func fail(_ error: any Error) { take()?.fail(error) }

    private func take() -> EventLoopPromise<Void>? {
        promise.withLockedValue { promise in
            defer { promise = nil }
            return promise
        }
    }
}
