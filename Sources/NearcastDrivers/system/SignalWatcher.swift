import Glibc

/// Turns SIGINT, SIGTERM and SIGHUP into values the daemon loop polls for, instead of handlers
/// that run at arbitrary moments: the signals are blocked and collected with sigtimedwait.
public final class SignalWatcher {
    /// A signal the daemon acts on.
    public enum Signal: Sendable, Equatable {
        case interrupt, terminate, hangUp
    }

    private var set = sigset_t()

    /// Blocks the signals for this thread and threads it starts later (call it before
    /// starting any thread).
    public init() {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// A pending signal, if any, without waiting.
    public func poll() -> Signal? {
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        // No signal pending is EAGAIN (nil); the set is valid, so no other error can come.
        let number = try? retryingInterrupts(nonBlocking: "sigtimedwait", nil) { sigtimedwait(&set, nil, &zero) }
        switch number {
        case SIGINT: return .interrupt
        case SIGTERM: return .terminate
        case SIGHUP: return .hangUp
        default: return nil
        }
    }
}
