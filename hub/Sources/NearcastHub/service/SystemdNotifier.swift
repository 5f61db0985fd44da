#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells systemd how the service is doing (the sd_notify protocol: one datagram of
/// `KEY=VALUE` lines to the Unix socket named by `$NOTIFY_SOCKET`), so a `Type=notify` unit is
/// "started" only once the hub listens, and `systemctl status` shows what it serves. Without
/// `$NOTIFY_SOCKET` (not under systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    /// The socket's path; a leading `@` names an abstract socket.
    public let socketPath: String?

    public init(environment socketPath: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        self.socketPath = socketPath.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends `state` (as "READY=1\nSTATUS=serving https://0.0.0.0:443"); returns false when
    /// there is no socket or the datagram could not be sent (systemd then times the start out,
    /// which its journal reports: nothing more useful can be done here).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }   // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !path.isEmpty, path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // The address's length counts only the path's bytes: an abstract name is not
        // NUL-terminated, and its trailing zeros would be part of the name.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(state.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == bytes.count
    }
}
