import Glibc

/// A byte stream to a technician: a serial tty, standard input/output, or a Unix socket client.
/// Reads and writes never block, so a stalled or vanished terminal cannot stop broadcasting.
public final class TerminalPort {
    /// What the port is, for messages ("/dev/ttyAMA0", "stdio", "console socket client").
    public let name: String
    private let input: Int32
    private let output: Int32
    private let ownsDescriptors: Bool
    private var savedAttributes: termios?
    /// True once the other end has gone (EOF, hang-up, or a write error).
    public private(set) var isClosed = false
    /// Why it closed, for the log.
    public private(set) var closeReason = ""

    private init(name: String, input: Int32, output: Int32, ownsDescriptors: Bool) {
        self.name = name
        self.input = input
        self.output = output
        self.ownsDescriptors = ownsDescriptors
    }

    deinit {
        restoreAttributes()
        if ownsDescriptors {
            Glibc.close(input)
            if output != input { Glibc.close(output) }
        }
    }

    /// Opens a serial device (or a pseudo-terminal's slave side) in raw mode, 8N1 at `baud`.
    public static func serial(path: String, baud: Int) throws(SystemError) -> TerminalPort {
        let (fd, saved) = try SerialLine.open(path, baud: baud, flowControl: false)
        let port = TerminalPort(name: path, input: fd, output: fd, ownsDescriptors: true)
        port.savedAttributes = saved
        return port
    }

    /// Standard input and output. On a terminal, echo and line buffering are turned off (the
    /// line editor echoes) but Ctrl-C still sends SIGINT; restored when the port goes away.
    public static func standardStreams() throws(SystemError) -> TerminalPort {
        let port = TerminalPort(name: "stdio", input: STDIN_FILENO, output: STDOUT_FILENO, ownsDescriptors: false)
        try port.setNonBlocking(STDIN_FILENO)
        if isatty(STDIN_FILENO) == 1 {
            var attributes = termios()
            _ = try retryingInterrupts("tcgetattr", "stdin") { tcgetattr(STDIN_FILENO, &attributes) }
            port.savedAttributes = attributes
            attributes.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
            attributes.c_iflag &= ~tcflag_t(ICRNL | IXON)
            _ = try retryingInterrupts("tcsetattr", "stdin") { tcsetattr(STDIN_FILENO, TCSANOW, &attributes) }
        }
        return port
    }

    /// A connected socket (a `nearcast console` client).
    public static func socket(_ fd: Int32, name: String) throws(SystemError) -> TerminalPort {
        let port = TerminalPort(name: name, input: fd, output: fd, ownsDescriptors: true)
        try port.setNonBlocking(fd)
        return port
    }

    /// True when standard input is a terminal.
    public static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads what is waiting (up to `buffer.count` bytes) without blocking; 0 when nothing is.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !isClosed else { return 0 }
        do throws(SystemError) {
            let got = try retryingInterrupts(nonBlocking: "read", name) { Glibc.read(input, buffer.baseAddress, buffer.count) }
            guard let n = got else { return 0 }             // nothing waiting
            if n == 0 { close(because: "end of input") }
            return n
        } catch {
            close(because: "read: \(error.message)")
            return 0
        }
    }

    /// Writes as much of `bytes` as the terminal takes now; returns how many (0 if it is full).
    public func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !isClosed, bytes.count > 0 else { return 0 }
        do throws(SystemError) {
            do throws(SystemError) {
                return try retryingInterrupts(nonBlocking: "send", name) {
                    Glibc.send(output, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                } ?? 0
            } catch where error.code == ENOTSOCK {
                // Not a socket: a tty or a pipe; make sure it does not block, then write(2).
                try? setNonBlocking(output)
                return try retryingInterrupts(nonBlocking: "write", name) { Glibc.write(output, bytes.baseAddress, bytes.count) } ?? 0
            }
        } catch {
            close(because: "write: \(error.message)")
            return 0
        }
    }

    private func close(because reason: String) {
        isClosed = true
        closeReason = reason
    }

    private func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try retryingInterrupts("fcntl", name) { fcntl(fd, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            _ = try retryingInterrupts("fcntl", name) { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
    }

    private func restoreAttributes() {
        guard var saved = savedAttributes else { return }
        tcsetattr(input, TCSANOW, &saved)
        savedAttributes = nil
    }
}
