#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The clock systemd's MONOTONIC_USEC is read on (CLOCK_MONOTONIC).
public enum SystemdClock {
    /// Microseconds on CLOCK_MONOTONIC, as systemd compares them.
    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
