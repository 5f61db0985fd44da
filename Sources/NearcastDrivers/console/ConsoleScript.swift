/// How `nearcast console` runs a script through the console socket when its standard input is
/// not a terminal (`echo status | nearcast console`, a here-document, a file): the replies only,
/// and whether each line failed, so the client can print the one and exit with the other.
///
/// The socket starts every client as a terminal session (a greeting, prompts, echo), which is
/// what a terminal or a plain socket client gets. A script client sends ``hello`` first; the
/// daemon's session answers with ``hello`` once it has switched, and from then on reads one line
/// per LF and answers each with its reply's lines (LF-terminated, no prompt, no echo, no
/// terminal codes), then one status line, ``succeeded`` or ``failed``. The client skips
/// whatever came before the daemon's ``hello`` (the terminal session's greeting). The
/// protocol's own lines start with ``marker``, which no reply line does: the session turns
/// every control byte in a reply into a space.
public enum ConsoleScript {
    /// The first byte of the protocol's own lines (ASCII RS, record separator).
    public static let marker: UInt8 = 0x1E
    /// The client's first line, and the daemon's answer once the session is a script session.
    public static let hello: [UInt8] = [marker] + Array("nearcast-script 1\n".utf8)
    /// Ends the reply to a line that did what it asked.
    public static let succeeded: [UInt8] = [marker] + Array("ok\n".utf8)
    /// Ends the reply to a line that failed: a refusal (an unknown command, a wrong argument
    /// count, the PIN needed), a command's own error, a wrong PIN.
    public static let failed: [UInt8] = [marker] + Array("failed\n".utf8)

    /// The daemon's side of a script session, read as it arrives (a line or a status split
    /// across reads included).
    public struct Reader {
        /// What the daemon said.
        public enum Event: Equatable {
            /// A line of the reply under way, without its LF.
            case line([UInt8])
            /// The reply to the next line of the script is complete.
            case answered(failed: Bool)
        }

        /// Whether the daemon's ``hello`` has been seen (before it, everything is skipped).
        public private(set) var isScriptSession = false
        private var helloMatched = 0
        private var line: [UInt8] = []

        public init() {}

        public mutating func feed(_ bytes: some Collection<UInt8>, _ handle: (Event) -> Void) {
            for byte in bytes {
                guard isScriptSession else {
                    // `marker` opens the hello and occurs in it once, so a mismatch restarts the match.
                    helloMatched = byte == hello[helloMatched] ? helloMatched + 1 : byte == marker ? 1 : 0
                    if helloMatched == hello.count { isScriptSession = true }
                    continue
                }
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    continue
                }
                defer { line.removeAll(keepingCapacity: true) }
                guard line.first == marker else {
                    handle(.line(line))
                    continue
                }
                if line.elementsEqual(succeeded.dropLast()) { handle(.answered(failed: false)) }
                if line.elementsEqual(failed.dropLast()) { handle(.answered(failed: true)) }
            }
        }
    }
}
