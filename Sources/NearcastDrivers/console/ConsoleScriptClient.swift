import Glibc

/// `nearcast console` with its standard input not a terminal: sends the script's lines through
/// the daemon's console socket as a ``ConsoleScript`` session and prints the replies only. A
/// reply that succeeded goes to standard output as the daemon wrote it; one that failed goes to
/// standard error, each of its lines after `line N: ` (N the script's line). Returns when every
/// line has been answered, when the daemon closes the console (after `exit`, a `restart`), or
/// when the daemon stays silent for ``answerTimeoutMilliseconds`` with a line unanswered.
public enum ConsoleScriptClient {
    /// How long a line may wait for its answer while the daemon says nothing: longer than the
    /// longest `debug stall` (60 s), during which the daemon's loop answers nothing.
    public static let answerTimeoutMilliseconds: Int64 = 90_000

    /// What became of the script.
    public struct Outcome {
        /// Lines sent (an unterminated last line counts).
        public var lines = 0
        /// Lines answered, and of those, failed.
        public var answered = 0
        public var failed = 0
        /// Why the client stopped before every line was answered; nil when all were.
        public var cutShort: String?
    }

    public static func run(socket fd: Int32) throws(SystemError) -> Outcome {
        let remote = try TerminalPort.socket(fd, name: "console socket")
        var outcome = Outcome()
        var reader = ConsoleScript.Reader()
        var reply: [[UInt8]] = []
        var outbound = ConsoleScript.hello
        var input = LineEnds()
        var inputOpen = true
        var buffer = [UInt8](repeating: 0, count: 4096)
        var lastHeard = MonotonicClock.nanoseconds()
        while !remote.isClosed {
            if !inputOpen && outbound.isEmpty && outcome.answered == outcome.lines && reader.isScriptSession { return outcome }
            var descriptors = [pollfd(fd: inputOpen ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: fd, events: Int16(outbound.isEmpty ? POLLIN : POLLIN | POLLOUT), revents: 0)]
            _ = poll(&descriptors, nfds_t(descriptors.count), 200)

            let fromDaemon = buffer.withUnsafeMutableBytes { remote.read(into: $0) }
            if fromDaemon > 0 {
                lastHeard = MonotonicClock.nanoseconds()
                reader.feed(buffer[0..<fromDaemon]) { event in
                    switch event {
                    case .line(let line):
                        reply.append(line)
                    case .answered(let failed):
                        outcome.answered += 1
                        if failed { outcome.failed += 1 }
                        for line in reply {
                            let text = String(decoding: line, as: UTF8.self)
                            if failed { StandardStreams.error("line \(outcome.answered): \(text)") } else { StandardStreams.line(text) }
                        }
                        reply.removeAll()
                    }
                }
            }
            if inputOpen && descriptors[0].revents != 0 {
                let count = try retryingInterrupts("read", "stdin") {
                    buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
                }
                if count > 0 {
                    outcome.lines += input.normalise(buffer[0..<count], into: &outbound)
                } else {
                    inputOpen = false
                    outcome.lines += input.finish(into: &outbound)
                }
            }
            if !outbound.isEmpty {
                let sent = outbound.withUnsafeBytes { remote.write($0) }
                outbound.removeFirst(sent)
            }
            let waiting = !reader.isScriptSession || outcome.answered < outcome.lines
            if waiting && MonotonicClock.nanoseconds() - lastHeard > answerTimeoutMilliseconds * 1_000_000 {
                outcome.cutShort = "no answer from the daemon in \(answerTimeoutMilliseconds / 1000) s"
                    + " (\(outcome.answered) of \(outcome.lines) lines answered)"
                return outcome
            }
        }
        if outcome.answered < outcome.lines || !reader.isScriptSession {
            outcome.cutShort = "the daemon closed the console after answering \(outcome.answered) of \(outcome.lines) lines"
        }
        return outcome
    }

    /// The script's lines as the daemon reads them: CR, LF and CRLF each end a line (as on the
    /// console's terminal), sent as LF; a last line without an end gets one.
    struct LineEnds {
        private var afterCR = false
        private var midLine = false

        /// Appends `bytes` to `output` with their line ends made LF; returns the lines ended.
        mutating func normalise(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) -> Int {
            var ended = 0
            for byte in bytes {
                if byte == UInt8(ascii: "\n") && afterCR {
                    afterCR = false
                    continue
                }
                afterCR = byte == UInt8(ascii: "\r")
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    output.append(UInt8(ascii: "\n"))
                    midLine = false
                    ended += 1
                } else {
                    output.append(byte)
                    midLine = true
                }
            }
            return ended
        }

        /// The end of the input: ends an unterminated last line; returns the lines ended (0 or 1).
        mutating func finish(into output: inout [UInt8]) -> Int {
            guard midLine else { return 0 }
            midLine = false
            output.append(UInt8(ascii: "\n"))
            return 1
        }
    }
}
