#if canImport(Glibc)
import Glibc
#endif

/// The two clocks the tool reads: a monotonic one for every latency it measures itself (a page
/// turn sent, a show event arrived: both in this process), and the wall clock only where the hub's
/// own stamp is compared (a reaction's `time`, milliseconds since 1970, the hub's clock on the same
/// machine).
enum Clocks {
    /// Nanoseconds on CLOCK_MONOTONIC.
    static func monotonicNs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Milliseconds since 1970 (CLOCK_REALTIME), with their fraction: the hub rounds its stamps to
    /// whole milliseconds, so a latency against one is good to a millisecond.
    static func wallMs() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
    }
}
