#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells systemd how a service is doing, with the sd_notify(3) protocol: datagrams of
/// `KEY=VALUE` lines to the Unix socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the
/// abstract namespace). Both programs use it: the box (READY once really broadcasting, STATUS
/// following its LEDs, WATCHDOG pings, RELOADING around SIGHUP, STOPPING) and the hub (READY
/// and STATUS once it listens).
///
/// ```swift
/// let notifier = try? SystemdNotifier.fromEnvironment()   // nil when not run by systemd
/// notifier?.send(.ready, .status("serving https://0.0.0.0:443"))
/// ```
///
/// Written from the protocol's description rather than linked to libsystemd: neither program
/// then needs another library, and a test can be the "systemd" by binding the socket itself.
/// Immutable after `init`, so one notifier can be shared between tasks and threads.
public final class SystemdNotifier: Sendable {
    /// `$NOTIFY_SOCKET` as given (`@` first: the abstract namespace).
    public let socketPath: String
    /// Seconds between watchdog pings (half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    /// advises), when systemd asked this process for them; nil otherwise.
    public let watchdogInterval: Double?
    private let descriptor: Int32
    private let address: sockaddr_un
    /// The address's length: the family and the path's bytes (see `init`).
    private let addressLength: socklen_t

    /// The notifier systemd asked for through the environment (`$NOTIFY_SOCKET`, and
    /// `$WATCHDOG_USEC` with `$WATCHDOG_PID`), or nil when not run by systemd with
    /// Type=notify. Throws when `$NOTIFY_SOCKET` is set but cannot be used.
    public static func fromEnvironment() throws(SystemdNotifierError) -> SystemdNotifier? {
        guard let path = environment("NOTIFY_SOCKET") else { return nil }
        var interval: Double?
        if let text = environment("WATCHDOG_USEC"), let microseconds = Double(text), microseconds > 0 {
            // WATCHDOG_PID, when set, names the process that must ping: this one or another.
            let pid = environment("WATCHDOG_PID").flatMap { Int32($0) }
            if pid == nil || pid == getpid() { interval = microseconds / 2e6 }
        }
        return try SystemdNotifier(socketPath: path, watchdogInterval: interval)
    }

    /// A notifier sending to `socketPath` (`@` first: the abstract namespace).
    public init(socketPath: String, watchdogInterval: Double? = nil) throws(SystemdNotifierError) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        // A path needs room for its NUL; an abstract name has none (its trailing zeros would be
        // part of the name), so the address's length counts only the name's bytes.
        guard !path.isEmpty, path.count + (path[0] == 0 ? 0 : 1) <= capacity else {
            throw SystemdNotifierError(code: ENAMETOOLONG, operation: "address", socketPath: socketPath)
        }
        if path[0] != 0 { path.append(0) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        address = socketAddress
        addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count)
        descriptor = try retryingInterrupts("socket", socketPath) { socket(AF_UNIX, Self.datagramSocket, 0) }
    }

    deinit { close(descriptor) }

    /// Sends `notifications` in one datagram; returns whether it went. A failure is not thrown:
    /// systemd then times the start out or the watchdog fires, and its journal says so, which
    /// is all that can usefully happen.
    @discardableResult
    public func send(_ notifications: SystemdNotification...) -> Bool { send(notifications) }

    /// The same, from an array.
    @discardableResult
    public func send(_ notifications: [SystemdNotification]) -> Bool {
        let bytes = Array(notifications.map(\.description).joined(separator: "\n").utf8)
        let sent = try? retryingInterrupts("sendto", socketPath) {
            bytes.withUnsafeBytes { buffer in
                withUnsafePointer(to: address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, buffer.baseAddress, buffer.count, Self.noSignal, $0, addressLength)
                    }
                }
            }
        }
        return sent == bytes.count
    }

    /// An environment variable, or nil when unset or empty.
    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    #if canImport(Glibc)
    private static let datagramSocket = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    /// A datagram to a socket nobody reads must not end the process with SIGPIPE.
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let datagramSocket = SOCK_DGRAM
    private static let noSignal: Int32 = 0
    #endif
}
