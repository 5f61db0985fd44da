import Glibc

/// A Unix stream socket that a running daemon listens on, so `nearcast console` on the box can
/// attach to it. Accepting never blocks.
public final class ConsoleSocketServer {
    public let path: String
    private let descriptor: Int32

    /// Listens at `path` (a stale socket file from an earlier run is replaced), mode 0600.
    public init(path: String) throws(SystemError) {
        self.path = path
        unlink(path)
        descriptor = try retryingInterrupts("socket", path) { Glibc.socket(AF_UNIX, SocketType.stream | SocketType.nonBlocking | SocketType.closeOnExec, 0) }
        var address = try Self.address(path)
        let descriptor = self.descriptor
        do throws(SystemError) {
            _ = try retryingInterrupts("bind", path) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
            chmod(path, 0o600)
            _ = try retryingInterrupts("listen", path) { listen(descriptor, 4) }
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit {
        Glibc.close(descriptor)
        unlink(path)
    }

    /// A client that has connected, or nil.
    public func accept() -> TerminalPort? {
        let client = Glibc.accept(descriptor, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return try? TerminalPort.socket(client, name: "console socket client")
    }

    /// Connects to a daemon's console socket (for `nearcast console`); blocking.
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let fd = try retryingInterrupts("socket", path) { Glibc.socket(AF_UNIX, SocketType.stream | SocketType.closeOnExec, 0) }
        var address = try Self.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let error = SystemError.lastError("connect", path)     // not retried: see lastError
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    private static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError(code: ENAMETOOLONG, operation: "socket path", subject: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return address
    }
}

/// `nearcast console`: relays this terminal to a daemon's console socket until either side
/// closes. The local terminal goes into the same mode as the daemon's stdio console (no echo,
/// no line buffering; Ctrl-C still interrupts the client). When the input ends (a script piping
/// lines in: `echo status | nearcast console`) the relay waits for the daemon to answer every line
/// sent, each answer ending with a prompt, before it leaves.
public enum ConsoleRelay {
    /// How long the relay waits, once the input has ended, for the daemon's next byte.
    public static let answerTimeoutMilliseconds: Int32 = 30_000

    /// Runs the relay; returns when the daemon closes the connection, or when the input has ended
    /// and every line sent has been answered (or the daemon said nothing for 30 s).
    public static func run(socket fd: Int32) throws(SystemError) {
        let local = try TerminalPort.standardStreams()
        let remote = try TerminalPort.socket(fd, name: "console socket")
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        var inputOpen = true
        var prompts = ConsolePromptCounter()
        var linesSent = 0
        var quietMilliseconds: Int32 = 0
        while !remote.isClosed {
            descriptors[0].fd = inputOpen ? STDIN_FILENO : -1
            _ = poll(&descriptors, nfds_t(descriptors.count), 200)
            let fromDaemon = buffer.withUnsafeMutableBytes { remote.read(into: $0) }
            if fromDaemon > 0 {
                try writeAll(buffer, count: fromDaemon, to: STDOUT_FILENO)
                prompts.feed(buffer[0..<fromDaemon])
                quietMilliseconds = 0
            }
            if inputOpen {
                let fromUser = buffer.withUnsafeMutableBytes { local.read(into: $0) }
                if fromUser > 0 {
                    linesSent += buffer[0..<fromUser].filter { $0 == UInt8(ascii: "\n") }.count
                    var offset = 0
                    while offset < fromUser && !remote.isClosed {
                        let sent = buffer.withUnsafeBytes { remote.write(UnsafeRawBufferPointer(rebasing: $0[offset..<fromUser])) }
                        if sent == 0 { _ = poll(nil, 0, 10) }
                        offset += sent
                    }
                }
                if local.isClosed { inputOpen = false }
                continue
            }
            // The input has ended: every line sent is answered once the daemon has shown as many
            // prompts as lines, plus the greeting's.
            if prompts.count >= linesSent + 1 { break }
            if fromDaemon == 0 {
                quietMilliseconds += 200
                if quietMilliseconds >= answerTimeoutMilliseconds { break }
            }
        }
    }

    private static func writeAll(_ buffer: [UInt8], count: Int, to descriptor: Int32) throws(SystemError) {
        var offset = 0
        while offset < count {
            let n = try retryingInterrupts("write", "stdout") {
                buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, count - offset) }
            }
            if n == 0 { _ = poll(nil, 0, 10) }
            offset += n
        }
    }
}

/// Counts the console's prompts in what the daemon sends (a prompt split across two reads
/// included): each line the console reads is answered with one, the command prompt or a PIN's
/// question, so the count tells when every line sent has been answered.
public struct ConsolePromptCounter {
    /// The prompts the daemon's console shows (ConsoleSession's and the PIN questions').
    static let prompts: [[UInt8]] = ["nearcast> ", "PIN: ", "new PIN (4-12 digits): ", "new PIN again: "].map { Array($0.utf8) }
    private static let longest = prompts.map(\.count).max() ?? 0

    private var carry: [UInt8] = []
    /// Prompts seen so far.
    public private(set) var count = 0

    public init() {}

    public mutating func feed(_ chunk: some Collection<UInt8>) {
        let data = carry + Array(chunk)
        for start in data.indices {
            for prompt in Self.prompts where start + prompt.count <= data.count && start + prompt.count > carry.count {
                if data[start..<start + prompt.count].elementsEqual(prompt) { count += 1 }
            }
        }
        carry = Array(data.suffix(Self.longest - 1))
    }
}
