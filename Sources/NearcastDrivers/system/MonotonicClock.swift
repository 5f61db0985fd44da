import Glibc

/// The system's monotonic clock (CLOCK_MONOTONIC): never jumps with wall-clock changes, which a
/// Pi without a real-time clock makes at every NTP sync.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Seconds since an arbitrary fixed point, as a Double.
    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

    /// Sleeps until the monotonic clock reads `deadline` nanoseconds (restarting after signals
    /// unless `interruptible`, in which case a signal ends the sleep early).
    public static func sleep(until deadline: Int64, interruptible: Bool = false) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while true {
            let result = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil)
            if result == EINTR && !interruptible { continue }
            return
        }
    }
}

/// CPU time used by the calling thread (CLOCK_THREAD_CPUTIME_ID): what a benchmark charges to
/// the decoder, unaffected by other processes and by time spent waiting.
public enum ThreadCPUClock {
    /// CPU seconds the calling thread has used.
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
