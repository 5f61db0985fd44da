import NearcastCore
import NearcastDrivers

/// One technician's console: bytes from a ``ConsoleTransport`` (a serial line, the daemon's
/// terminal, a socket client, or a test's twin) through the line editor, lines to the command
/// interpreter, output back without ever blocking. Output waiting for a slow or stalled
/// terminal is capped; beyond the cap it is dropped and counted, so the daemon never waits.
///
/// A socket client that opens with ``ConsoleScript/hello`` (`nearcast console` reading a script)
/// gets a script session instead: no editor, prompt, echo or log lines, each line's reply and
/// then whether it failed (``ConsoleScriptLines``).
final class ConsoleSession {
    /// Output bytes kept for a terminal that is not reading.
    static let maximumPending = 256 * 1024

    let port: any ConsoleTransport
    private var editor: LineEditor
    private var screen = TerminalOutput()
    private var pending: [UInt8] = []
    private(set) var droppedBytes = 0
    private let execute: (String, ConsoleSession) -> ConsoleReply
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// Set by `exit`/Ctrl-D on a socket client.
    var wantsToClose = false
    /// Whether the technician PIN was given in this session (`login`).
    var loggedIn = false
    /// When this session last ran a command (milliseconds), for the idle logout.
    var lastCommandAt: Int64 = 0
    /// A logged-in session that runs no command for this long (milliseconds) is logged out,
    /// so a UART console left logged in does not stay open to the next person.
    static let idleLogout: Int64 = 10 * 60_000
    /// Where the next line goes while a secret (a PIN) is being typed.
    private var secretHandler: ((String, ConsoleSession) throws(ConsoleFailure) -> [String])?
    /// A script session's lines, once the client has said hello; nil for a terminal session.
    private var script: ConsoleScriptLines?
    /// How many bytes of ``ConsoleScript/hello`` a socket client's first bytes have matched;
    /// nil once they did not, and always for the UART and stdio.
    private var helloMatched: Int?
    private static let commandPrompt: StaticString = "nearcast> "
    /// What the editor shows before the line now: the command prompt, or a PIN's question.
    var currentPrompt: StaticString { editor.prompt }
    /// Whether `exit` and Ctrl-D may end this session: only a `nearcast console` client; the
    /// UART and stdio consoles stay open for as long as the daemon runs.
    let canClose: Bool

    init(port: any ConsoleTransport, table: CommandTable, colour: Bool, canClose: Bool,
         execute: @escaping (String, ConsoleSession) -> ConsoleReply) {
        self.port = port
        self.canClose = canClose
        helloMatched = canClose ? 0 : nil
        self.editor = LineEditor(table: table, prompt: Self.commandPrompt)
        self.editor.colour = colour
        self.execute = execute
        say(["Nearcast console: type help (Tab completes, arrows edit and recall)"])
        editor.showPrompt(into: &screen)
        moveScreen()
    }

    /// Reads and handles what the terminal sent; writes what is waiting. Never blocks.
    func service() {
        var budget = 8                                          // at most 32 KiB per call
        // A script reads no more lines while its replies wait unread, so none is dropped.
        while budget > 0 && (script == nil || pending.count < Self.maximumPending / 4) {
            let count = readBuffer.withUnsafeMutableBytes { port.read(into: $0) }
            if count == 0 { break }
            for index in 0..<count { handle(readBuffer[index]) }
            budget -= 1
        }
        flush()
    }

    /// A log line, printed above the line being typed (a script session gets only replies).
    func logLine(_ text: String) {
        guard script == nil else { return }
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { editor.printAbove(UnsafeBufferPointer($0), into: &screen) }
        moveScreen()
    }

    var isClosed: Bool { port.isClosed || wantsToClose }

    /// Reads the next line as a secret: shown as `prompt` alone, nothing echoed, kept out of the
    /// history, and handed to `handler` instead of the command interpreter. Ctrl-C cancels.
    func askSecret(_ prompt: StaticString, then handler: @escaping (String, ConsoleSession) throws(ConsoleFailure) -> [String]) {
        secretHandler = handler
        editor.secret = true
        editor.prompt = prompt
    }

    private func endSecret() -> ((String, ConsoleSession) throws(ConsoleFailure) -> [String])? {
        let handler = secretHandler
        secretHandler = nil
        editor.secret = false
        editor.prompt = Self.commandPrompt
        return handler
    }

    private func handle(_ byte: UInt8) {
        if let matched = helloMatched {
            guard byte == ConsoleScript.hello[matched] else {
                // Not a script's hello: what was held back goes to the editor after all.
                helloMatched = nil
                for held in ConsoleScript.hello[0..<matched] { handle(held) }
                handle(byte)
                return
            }
            helloMatched = matched + 1 < ConsoleScript.hello.count ? matched + 1 : nil
            if helloMatched == nil { startScript() }
            return
        }
        if script != nil {
            handleScript(byte)
            return
        }
        guard let event = editor.feed(byte, into: &screen) else {
            if screen.count > TerminalOutput.capacity / 2 { moveScreen() }
            return
        }
        moveScreen()
        switch event {
        case .line:
            let line = editor.withSubmittedLine { String(decoding: $0, as: UTF8.self) }
            say(run(line).lines)
        case .tooLong(let length):
            if endSecret() != nil { say(["cancelled: too long"]) } else {
                say(["error: line of \(length) bytes is longer than \(LineEditor.maximumLength); not run"])
            }
        case .interrupt:
            if endSecret() != nil { say(["cancelled"]) }
        case .endOfInput:
            if endSecret() != nil { say(["cancelled"]) } else if canClose { wantsToClose = true }
        }
        editor.showPrompt(into: &screen)
        moveScreen()
    }

    /// Runs a line: the secret asked for, or a command.
    private func run(_ line: String) -> ConsoleReply {
        guard let handler = endSecret() else { return execute(line, self) }
        return ConsoleReply { () throws(ConsoleFailure) in try handler(line, self) }
    }

    /// The client said hello: from now on this is a script session. What the terminal session
    /// had queued (the greeting, the prompt) is dropped; the client skips it anyway.
    private func startScript() {
        script = ConsoleScriptLines()
        screen.drain { $0.count }
        pending.removeAll()
        append(ConsoleScript.hello)
    }

    private func handleScript(_ byte: UInt8) {
        // After `exit` the rest of the script is not run: the client tells the lines left over.
        guard !wantsToClose, let event = script?.feed(byte) else { return }
        let reply: ConsoleReply
        switch event {
        case .line(let line):
            reply = run(line)
        case .tooLong(let length):
            _ = endSecret()
            reply = ConsoleReply(failed: ["error: line of \(length) bytes is longer than \(LineEditor.maximumLength); not run"])
        }
        for line in reply.lines { append(ConsoleScriptLines.replyLine(line)) }
        append(reply.failed ? ConsoleScript.failed : ConsoleScript.succeeded)
    }

    private func say(_ lines: [String]) {
        for line in lines {
            append(Array(line.utf8).map { $0 == 0x0A ? 0x20 : $0 })
            append([0x0D, 0x0A])
        }
    }

    private func moveScreen() {
        screen.drain { raw in append(Array(raw)); return raw.count }
    }

    private func append(_ bytes: [UInt8]) {
        let room = Self.maximumPending - pending.count
        if bytes.count > room { droppedBytes += bytes.count - room }
        pending += bytes.prefix(max(0, room))
    }

    private func flush() {
        var written = 0
        while written < pending.count {
            let n = pending.withUnsafeBytes { port.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            if n == 0 { break }
            written += n
        }
        if written > 0 { pending.removeFirst(written) }
        // Say so once the terminal has caught up, so the technician knows output went missing.
        if droppedBytes > 0 && pending.count < Self.maximumPending / 2 {
            let notice = Array("\r\n[console: \(droppedBytes) bytes of output dropped: the terminal was not reading]\r\n".utf8)
            droppedBytes = 0
            pending += notice
        }
    }
}
