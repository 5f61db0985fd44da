/// The console's line editor: bytes from a terminal in, an edited line and terminal output out.
///
/// Pure and allocation-free per keystroke (fixed buffers, static strings), so a technician typing
/// on the UART never costs the box a heap allocation. It puts together the parts, one concern each:
/// ``TerminalKeyDecoder`` (bytes to keys), ``LineBuffer`` (editing), ``LineHistory`` (the arrows'
/// walk) and `LineCompletion` (Tab), and draws the result. What it understands:
///
/// - printable ASCII inserts at the cursor; backspace (DEL or BS) and Delete (`ESC [3~`, Ctrl-D on
///   a non-empty line) remove; left/right (arrows, Ctrl-B/F), Home/End (arrows' `ESC [H`/`[F`,
///   `[1~`/`[4~`, `[7~`/`[8~`, `ESC OH`/`OF`, Ctrl-A/E) move;
/// - Ctrl-K kills to the end, Ctrl-U to the start, Ctrl-W the word before the cursor; Ctrl-L
///   clears the screen; Ctrl-C abandons the line; Ctrl-D on an empty line ends input;
/// - up/down walk the last ``historyCapacity`` lines, keeping the line being typed;
/// - Tab completes command names and their argument words from a ``CommandTable``;
/// - CR, LF and CRLF all end a line; other control bytes and bytes above 0x7E are ignored;
/// - a line longer than ``maximumLength`` is refused whole when it ends (``Event/tooLong(length:)``);
/// - with ``secret`` set (a PIN being typed) nothing typed is echoed, completed or remembered.
public struct LineEditor: Sendable {
    /// The longest line accepted, in bytes.
    public static let maximumLength = LineBuffer.capacity
    /// Lines kept in the history.
    public static let historyCapacity = LineHistory.capacity

    /// What a byte completed.
    public enum Event: Sendable, Equatable {
        /// A line was entered; read it with ``withSubmittedLine(_:)``.
        case line
        /// A line of `length` bytes was entered and refused.
        case tooLong(length: Int)
        /// Ctrl-C: the line was abandoned.
        case interrupt
        /// Ctrl-D on an empty line.
        case endOfInput
    }

    private let table: CommandTable
    /// The prompt printed before each line.
    public var prompt: StaticString
    /// Whether to colour the prompt (only when the terminal asked for colours).
    public var colour = false
    /// Whether the line is a secret (a PIN): its bytes are never echoed or redrawn, Tab and the
    /// history do nothing, and it is not added to the history.
    public var secret = false

    private var keys = TerminalKeyDecoder()
    private var line = LineBuffer()
    private var submitted = LineBuffer()
    private var history = LineHistory()

    /// An editor completing from `table`, showing `prompt`.
    public init(table: CommandTable, prompt: StaticString = "nearcast> ") {
        self.table = table
        self.prompt = prompt
    }

    /// The line being edited, as bytes (for tests and status).
    public func withCurrentLine<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        line.withBytes(body)
    }

    /// The cursor's position in the line.
    public var cursorPosition: Int { line.cursor }

    /// The line entered last (valid after ``Event/line``).
    public func withSubmittedLine<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        submitted.withBytes(body)
    }

    /// Lines in the history.
    public var historyLength: Int { history.count }

    // MARK: Input

    /// Handles one byte from the terminal; echo and redraws go to `out`.
    public mutating func feed(_ byte: UInt8, into out: inout TerminalOutput) -> Event? {
        guard let key = keys.decode(byte) else { return nil }
        switch key {
        case .character(let byte):
            switch line.insert(byte) {
            case .appended: if !secret { out.append(byte) }
            case .inserted: refresh(&out)
            case .refused(let first): if first { out.append(0x07) }   // bell once; the line is refused at Enter
            }
        case .enter: return submit(&out)
        case .backspace: if line.backspace() { refresh(&out) }
        case .delete: if line.deleteAtCursor() { refresh(&out) }
        case .endOfInputOrDelete:
            if line.count == 0 && line.overflow == 0 { return .endOfInput }
            if line.deleteAtCursor() { refresh(&out) }
        case .left: if line.moveLeft() && !secret { out.append("\u{1B}[D") }
        case .right: if line.moveRight() && !secret { out.append("\u{1B}[C") }
        case .home:
            line.move(to: 0)
            refresh(&out)
        case .end:
            line.move(to: line.count)
            refresh(&out)
        case .up: if !secret && history.older(&line) { refresh(&out) }
        case .down: if !secret && history.newer(&line) { refresh(&out) }
        case .killToEnd:
            line.killToEnd()
            refresh(&out)
        case .killToStart:
            line.killToStart()
            refresh(&out)
        case .killWord: if line.killWord() { refresh(&out) }
        case .clearScreen:
            out.append("\u{1B}[2J\u{1B}[H")
            refresh(&out)
        case .interrupt:
            out.append("^C\r\n")
            clearLine()
            return .interrupt
        case .complete: if !secret && LineCompletion.complete(&line, table: table, listingInto: &out) { refresh(&out) }
        }
        return nil
    }

    // MARK: Output

    /// Prints the prompt and the line being edited (after a command's output, or at start).
    public mutating func showPrompt(into out: inout TerminalOutput) {
        refresh(&out)
    }

    /// Prints `text` on its own line above the prompt without disturbing what is being typed
    /// (log lines arriving while a technician types).
    public mutating func printAbove(_ text: UnsafeBufferPointer<UInt8>, into out: inout TerminalOutput) {
        out.append("\r\u{1B}[K")
        for byte in text where byte != 0x0A && byte != 0x0D { out.append(byte) }
        out.append("\r\n")
        refresh(&out)
    }

    private mutating func clearLine() {
        line.clear()
        history.stopWalking()
    }

    private mutating func submit(_ out: inout TerminalOutput) -> Event {
        out.append("\r\n")
        if line.overflow > 0 {
            let length = line.count + line.overflow
            clearLine()
            return .tooLong(length: length)
        }
        submitted = line
        if !secret { history.remember(line) }
        clearLine()
        return .line
    }

    /// Redraws the prompt and line, and puts the terminal's cursor where the editor's is.
    private func refresh(_ out: inout TerminalOutput) {
        out.append("\r")
        if colour { out.append("\u{1B}[1;32m") }
        out.append(prompt)
        if colour { out.append("\u{1B}[0m") }
        if secret {                                             // a PIN: the prompt alone
            out.append("\u{1B}[K")
            return
        }
        for index in 0..<line.count { out.append(line[index]) }
        out.append("\u{1B}[K")
        if line.cursor < line.count {
            out.append("\u{1B}[")
            out.append(decimal: line.count - line.cursor)
            out.append(UInt8(ascii: "D"))
        }
    }
}
