import Glibc

/// A stand-in for systemd's notification socket: a Unix datagram socket bound at a path, which a
/// test names in `$NOTIFY_SOCKET` and reads back what the program under test sent (sd_notify's
/// protocol: one datagram of `KEY=value` lines). Shared by the notifier's unit tests and the
/// daemon's end-to-end tests.
public final class NotifySocketListener {
    /// Where the socket is bound (what `$NOTIFY_SOCKET` should hold).
    public let path: String
    private let descriptor: Int32

    /// Binds a socket at `path` (its directory must exist and `path` must not).
    public convenience init(path: String) throws(NotifySocketListenerError) {
        try self.init(path: path, ownedDirectory: nil)
    }

    /// Binds a socket named `notify` in a fresh directory under /tmp (removed with the listener).
    public convenience init() throws(NotifySocketListenerError) {
        var template = Array("/tmp/nearcast-notify-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw NotifySocketListenerError(call: "mkdtemp", path: "/tmp/nearcast-notify-XXXXXX", code: errno)
        }
        let directory = String(cString: made)
        try self.init(path: directory + "/notify", ownedDirectory: directory)
    }

    /// `ownedDirectory`, when given, is removed with the listener, or at once when binding fails.
    /// (The descriptor is stored last: a class whose initialiser throws once every property is
    /// set runs its deinit, which would close it twice.)
    private init(path: String, ownedDirectory: String?) throws(NotifySocketListenerError) {
        self.path = path
        self.ownedDirectory = ownedDirectory
        descriptor = try Self.bound(at: path, removingOnFailure: ownedDirectory)
    }

    private static func bound(at path: String, removingOnFailure directory: String?) throws(NotifySocketListenerError) -> Int32 {
        func failure(_ call: String, _ code: Int32) -> NotifySocketListenerError {
            if let directory { rmdir(directory) }
            return NotifySocketListenerError(call: call, path: path, code: code)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw failure("bind", ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket", errno) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw failure("bind", code)
        }
        return descriptor
    }

    private let ownedDirectory: String?

    deinit {
        close(descriptor)
        unlink(path)
        if let ownedDirectory { rmdir(ownedDirectory) }
    }

    /// The next datagram's text, waiting up to `seconds`; nil when none came.
    public func receive(within seconds: Double = 1) -> String? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(seconds * 1_000)) == 1 else { return nil }
        return readOne()
    }

    /// Every datagram received within `seconds` (or until one satisfies `stop`), each with its
    /// arrival in seconds since the call.
    public func receive(for seconds: Double, until stop: (String) -> Bool = { _ in false }) -> [(at: Double, text: String)] {
        var got: [(at: Double, text: String)] = []
        let start = Self.monotonicSeconds()
        while Self.monotonicSeconds() - start < seconds {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0, let text = readOne() else { continue }
            got.append((Self.monotonicSeconds() - start, text))
            if stop(text) { break }
        }
        return got
    }

    private func readOne() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count <= 0 ? nil : String(decoding: buffer[0..<count], as: UTF8.self)
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// A listener that could not be set up: the call, the path and the errno, in words.
public struct NotifySocketListenerError: Error, CustomStringConvertible {
    public let call: String
    public let path: String
    public let code: Int32

    public var description: String { "\(call) \(path): \(String(cString: strerror(code))) (errno \(code))" }
}
