#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's descriptor limit, and how many of its descriptors connections may hold.
///
/// A hub whose connections took every descriptor did not refuse the next one: it died. Swift's
/// Dispatch on Linux watches its worker threads by opening `/proc/self/task/TID/stat` and traps
/// (SIGILL) when it cannot, and a render, the database and the log need descriptors too. So the
/// connections' cap is the smaller of `limits.connections` and the limit less a reserve, and a
/// connection past it is closed at once (a refusal the client sees, counted on /metrics).
public enum DescriptorBudget {
    /// Raises the soft descriptor limit to the hard one, as servers do (systemd's default soft
    /// limit is 1,024, its hard one far higher), and returns the soft limit in force after.
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current() }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &raised)
        }
        return current()
    }

    /// The soft descriptor limit now (`ulimit -n`).
    public static func current() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)   // rlim_t.max: RLIM_INFINITY
    }

    /// Descriptors kept from connections under a limit of `limit`: an eighth, at least 64 (the
    /// database's, the log's, two per poppler child, Dispatch's reads of /proc, a watch's file).
    public static func reserve(under limit: Int) -> Int {
        max(64, limit / 8)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    /// The connections that fit under `limit` descriptors.
    public static func connections(under limit: Int) -> Int {
        max(1, limit - reserve(under: limit))
    }
}
