import Glibc
import NearcastCore

/// A ``SampleRing`` shared by the daemon's loop and an audio thread, one producer and one
/// consumer, every access under one mutex, with a condition variable to wait for room or data.
///
/// Everything is allocated in `init`; `write`, `read` and the waits allocate nothing, so the
/// audio threads can use them. Blocks are moved whole under the lock, so a consumer taking a
/// period never sees half of one the producer is writing.
public final class SharedSampleRing: @unchecked Sendable {
    // @unchecked: every access to `ring` and `closed` holds `mutex`.
    public let capacity: Int
    private let ring: SampleRing
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var closed = false

    public init(capacity: Int) {
        self.capacity = capacity
        ring = SampleRing(capacity: capacity)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Timed waits on the monotonic clock: a wall-clock step (NTP on a Pi without an RTC)
        // must not stall or hurry the audio.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Writes all of `samples` (at most `capacity`), waiting for room; returns how many were
    /// written, fewer only when the ring was closed meanwhile.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        precondition(samples.count <= capacity, "a block larger than the ring could never fit")
        return locked {
            while !closed && ring.freeSpace < samples.count { pthread_cond_wait(changed, mutex) }
            guard !closed else { return 0 }
            let written = ring.write(samples)
            pthread_cond_broadcast(changed)
            return written
        }
    }

    /// Writes what fits of `samples` without waiting; returns how many (the rest is dropped).
    @discardableResult
    public func writeAvailable(_ samples: UnsafeBufferPointer<Float>) -> Int {
        locked {
            let written = ring.write(samples)
            if written > 0 { pthread_cond_broadcast(changed) }
            return written
        }
    }

    /// Copies up to `output.count` samples out; waits up to `timeoutNanoseconds` for a whole
    /// `output.count` to be there (0: no wait). Returns how many were copied.
    public func read(into output: UnsafeMutableBufferPointer<Float>, waitingUpTo timeoutNanoseconds: Int64 = 0) -> Int {
        locked {
            if timeoutNanoseconds > 0 && ring.count < output.count && !closed {
                let deadline = Self.deadline(after: timeoutNanoseconds)
                while ring.count < output.count && !closed {
                    if waitUntil(deadline) == ETIMEDOUT { break }
                }
            }
            let got = ring.read(into: output)
            if got > 0 { pthread_cond_broadcast(changed) }
            return got
        }
    }

    /// Wakes every waiter; writes after this return at once, writing nothing.
    public func close() {
        locked {
            closed = true
            pthread_cond_broadcast(changed)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    private func waitUntil(_ deadline: timespec) -> Int32 {
        var deadline = deadline
        return pthread_cond_timedwait(changed, mutex, &deadline)
    }

    private static func deadline(after nanoseconds: Int64) -> timespec {
        let at = MonotonicClock.nanoseconds() + nanoseconds
        return timespec(tv_sec: Int(at / 1_000_000_000), tv_nsec: Int(at % 1_000_000_000))
    }
}
