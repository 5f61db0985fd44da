import Glibc

/// Tells systemd how the daemon is doing, with the sd_notify(3) protocol: datagrams of
/// `KEY=VALUE` lines to the Unix socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the
/// abstract namespace). `READY=1` once the daemon is really broadcasting (Type=notify),
/// `WATCHDOG=1` from the loop at half of `$WATCHDOG_USEC` (WatchdogSec=), `RELOADING=1` and
/// `STOPPING=1` around a reload and a stop, and `STATUS=` for `systemctl status`.
///
/// Written from the protocol's description rather than linked to libsystemd: the daemon then
/// needs no extra library, and a test can be the "systemd" by binding the socket itself.
public final class SystemdNotifier {
    /// Seconds between watchdog pings (half the watchdog timeout), when systemd asked for them.
    public let watchdogInterval: Double?
    private let descriptor: Int32
    private var address: sockaddr_un
    private let addressLength: socklen_t
    private var lastPing = -Double.infinity

    /// The notifier systemd asked for through the environment, or nil when not run by systemd
    /// with Type=notify (or when the socket cannot be made).
    public static func fromEnvironment() -> SystemdNotifier? {
        guard let path = FileSystem.environment("NOTIFY_SOCKET"), !path.isEmpty else { return nil }
        var interval: Double?
        if let text = FileSystem.environment("WATCHDOG_USEC"), let microseconds = Double(text), microseconds > 0 {
            // WATCHDOG_PID, when set, names the process that must ping; ours or nobody's.
            let pid = FileSystem.environment("WATCHDOG_PID").flatMap { Int32($0) }
            if pid == nil || pid == getpid() { interval = microseconds / 2e6 }
        }
        return try? SystemdNotifier(socketPath: path, watchdogInterval: interval)
    }

    /// A notifier sending to `socketPath` (`@` first: the abstract namespace).
    public init(socketPath: String, watchdogInterval: Double?) throws(SystemError) {
        self.watchdogInterval = watchdogInterval
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty && bytes.count < capacity else {
            throw SystemError(code: ENAMETOOLONG, operation: "NOTIFY_SOCKET", subject: socketPath)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (bytes[0] == 0 ? 0 : 1))
        descriptor = try retryingInterrupts("socket", "NOTIFY_SOCKET") { socket(AF_UNIX, SocketType.datagram | SocketType.closeOnExec, 0) }
    }

    deinit { close(descriptor) }

    /// Sends `state` (one or more `KEY=VALUE` lines); returns whether it went.
    @discardableResult
    public func send(_ state: String) -> Bool {
        var bytes = Array(state.utf8)
        let sent = bytes.withUnsafeMutableBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, addressLength)
                }
            }
        }
        return sent == bytes.count
    }

    /// Sends `WATCHDOG=1` when half the watchdog timeout has passed since the last one; call it
    /// from the loop with the monotonic time in seconds.
    public func pingWatchdogIfDue(now: Double) {
        guard let watchdogInterval, now - lastPing >= watchdogInterval else { return }
        lastPing = now
        send("WATCHDOG=1")
    }
}
