/// The console's line editor: bytes from a terminal in, an edited line and terminal output out.
///
/// Pure and allocation-free per keystroke (fixed buffers, static strings), so a technician typing
/// on the UART never costs the box a heap allocation. What it understands:
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
    public static let maximumLength = 256
    /// Lines kept in the history.
    public static let historyCapacity = 32

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

    private enum EscapeState: Sendable { case none, escape, csi, ss3 }

    private let table: CommandTable
    /// The prompt printed before each line.
    public var prompt: StaticString
    /// Whether to colour the prompt (only when the terminal asked for colours).
    public var colour = false
    /// Whether the line is a secret (a PIN): its bytes are never echoed or redrawn, Tab and the
    /// history do nothing, and it is not added to the history.
    public var secret = false

    private var line: FixedArray<Tuple256<UInt8>, UInt8> = FixedArray(repeating: 0)
    private var count = 0
    private var cursor = 0
    private var overflow = 0
    private var submitted: FixedArray<Tuple256<UInt8>, UInt8> = FixedArray(repeating: 0)
    private var submittedCount = 0
    private var history: FixedArray<Bytes8192, UInt8> = FixedArray(repeating: 0)
    private var historyLengths: FixedArray<Tuple32<Int>, Int> = FixedArray(repeating: 0)
    private var historyStart = 0
    private var historyCount = 0
    private var browsing = -1
    private var draft: FixedArray<Tuple256<UInt8>, UInt8> = FixedArray(repeating: 0)
    private var draftCount = 0
    /// Bytes dropped from the draft at the limit: walking the history and back must not turn a
    /// refused line into a shorter one that runs.
    private var draftOverflow = 0
    private var escape = EscapeState.none
    private var escapeParameter = 0
    private var escapeLength = 0
    private var lastWasCarriageReturn = false

    /// An editor completing from `table`, showing `prompt`.
    public init(table: CommandTable, prompt: StaticString = "nearcast> ") {
        self.table = table
        self.prompt = prompt
    }

    /// The line being edited, as bytes (for tests and status).
    public func withCurrentLine<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        line.withUnsafeBufferPointer { bytes in body(UnsafeBufferPointer(rebasing: bytes[0..<count])) }
    }

    /// The cursor's position in the line.
    public var cursorPosition: Int { cursor }

    /// The line entered last (valid after ``Event/line``).
    public func withSubmittedLine<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        submitted.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[0..<submittedCount]))
        }
    }

    /// Lines in the history.
    public var historyLength: Int { historyCount }

    // MARK: Input

    /// Handles one byte from the terminal; echo and redraws go to `out`.
    public mutating func feed(_ byte: UInt8, into out: inout TerminalOutput) -> Event? {
        let afterCarriageReturn = lastWasCarriageReturn
        lastWasCarriageReturn = false
        switch escape {
        case .escape:
            escapeLength = 0
            escapeParameter = 0
            escape = byte == UInt8(ascii: "[") ? .csi : byte == UInt8(ascii: "O") ? .ss3 : .none
            return nil
        case .ss3:
            // ESC O x: the application-mode arrows and Home/End, the same finals as CSI.
            escape = .none
            escapeParameter = 0
            if byte != UInt8(ascii: "~") { finishCSI(byte, &out) }
            return nil
        case .csi:
            escapeLength += 1
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                escapeParameter = min(escapeParameter * 10 + Int(byte - UInt8(ascii: "0")), 1_000)
            } else if byte >= 0x40 && byte <= 0x7E {
                escape = .none
                finishCSI(byte, &out)
            } else if byte < 0x20 || byte > 0x3F || escapeLength > 16 {
                escape = .none                                   // not a sequence we know: drop it
            }
            return nil
        case .none:
            break
        }
        switch byte {
        case 0x0D:
            lastWasCarriageReturn = true
            return submit(&out)
        case 0x0A:
            return afterCarriageReturn ? nil : submit(&out)
        case 0x1B: escape = .escape
        case 0x7F, 0x08: backspace(&out)
        case 0x01: moveTo(0, &out)
        case 0x05: moveTo(count, &out)
        case 0x02: moveLeft(&out)
        case 0x06: moveRight(&out)
        case 0x0B:
            count = cursor
            refresh(&out)
        case 0x15: killToStart(&out)
        case 0x17: killWord(&out)
        case 0x0C:
            out.append("\u{1B}[2J\u{1B}[H")
            refresh(&out)
        case 0x03:
            out.append("^C\r\n")
            clearLine()
            return .interrupt
        case 0x04:
            if count == 0 && overflow == 0 { return .endOfInput }
            deleteAtCursor(&out)
        case 0x09: complete(&out)
        case 0x20...0x7E: insert(byte, &out)
        default: break                                          // other control bytes, 8-bit bytes
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

    // MARK: Editing

    private mutating func insert(_ byte: UInt8, _ out: inout TerminalOutput) {
        guard count < Self.maximumLength else {
            if overflow == 0 { out.append(0x07) }              // bell once; the line is refused at Enter
            overflow += 1
            return
        }
        if cursor == count {
            line[count] = byte
            count += 1
            cursor += 1
            if !secret { out.append(byte) }
            return
        }
        var index = count
        while index > cursor { line[index] = line[index - 1]; index -= 1 }
        line[cursor] = byte
        count += 1
        cursor += 1
        refresh(&out)
    }

    private mutating func backspace(_ out: inout TerminalOutput) {
        guard cursor > 0 else { return }
        for index in cursor..<count { line[index - 1] = line[index] }
        count -= 1
        cursor -= 1
        refresh(&out)
    }

    private mutating func deleteAtCursor(_ out: inout TerminalOutput) {
        guard cursor < count else { return }
        for index in (cursor + 1)..<count { line[index - 1] = line[index] }
        count -= 1
        refresh(&out)
    }

    private mutating func killToStart(_ out: inout TerminalOutput) {
        for index in cursor..<count { line[index - cursor] = line[index] }
        count -= cursor
        cursor = 0
        refresh(&out)
    }

    private mutating func killWord(_ out: inout TerminalOutput) {
        var start = cursor
        while start > 0 && line[start - 1] == 0x20 { start -= 1 }
        while start > 0 && line[start - 1] != 0x20 { start -= 1 }
        let removed = cursor - start
        guard removed > 0 else { return }
        for index in cursor..<count { line[index - removed] = line[index] }
        count -= removed
        cursor = start
        refresh(&out)
    }

    private mutating func moveLeft(_ out: inout TerminalOutput) {
        guard cursor > 0 else { return }
        cursor -= 1
        if !secret { out.append("\u{1B}[D") }
    }

    private mutating func moveRight(_ out: inout TerminalOutput) {
        guard cursor < count else { return }
        cursor += 1
        if !secret { out.append("\u{1B}[C") }
    }

    private mutating func moveTo(_ position: Int, _ out: inout TerminalOutput) {
        cursor = position
        refresh(&out)
    }

    private mutating func finishCSI(_ final: UInt8, _ out: inout TerminalOutput) {
        switch final {
        case UInt8(ascii: "A"): historyUp(&out)
        case UInt8(ascii: "B"): historyDown(&out)
        case UInt8(ascii: "C"): moveRight(&out)
        case UInt8(ascii: "D"): moveLeft(&out)
        case UInt8(ascii: "H"): moveTo(0, &out)
        case UInt8(ascii: "F"): moveTo(count, &out)
        case UInt8(ascii: "~"):
            switch escapeParameter {
            case 1, 7: moveTo(0, &out)
            case 4, 8: moveTo(count, &out)
            case 3: deleteAtCursor(&out)
            default: break
            }
        default: break
        }
    }

    private mutating func clearLine() {
        count = 0
        cursor = 0
        overflow = 0
        browsing = -1
    }

    private mutating func submit(_ out: inout TerminalOutput) -> Event {
        out.append("\r\n")
        if overflow > 0 {
            let length = count + overflow
            clearLine()
            return .tooLong(length: length)
        }
        for index in 0..<count { submitted[index] = line[index] }
        submittedCount = count
        if !secret { remember() }
        clearLine()
        return .line
    }

    // MARK: History

    private mutating func remember() {
        guard count > 0 else { return }
        var blank = true
        for index in 0..<count where line[index] != 0x20 { blank = false; break }
        if blank { return }
        if historyCount > 0 {
            let newest = (historyStart + historyCount - 1) % Self.historyCapacity
            if historyLengths[newest] == count {
                var same = true
                for index in 0..<count where history[newest * Self.maximumLength + index] != line[index] { same = false; break }
                if same { return }
            }
        }
        let slot: Int
        if historyCount < Self.historyCapacity {
            slot = (historyStart + historyCount) % Self.historyCapacity
            historyCount += 1
        } else {
            slot = historyStart
            historyStart = (historyStart + 1) % Self.historyCapacity
        }
        for index in 0..<count { history[slot * Self.maximumLength + index] = line[index] }
        historyLengths[slot] = count
    }

    private mutating func historyUp(_ out: inout TerminalOutput) {
        guard !secret, browsing + 1 < historyCount else { return }
        if browsing == -1 {
            for index in 0..<count { draft[index] = line[index] }
            draftCount = count
            draftOverflow = overflow
        }
        browsing += 1
        loadHistory(&out)
    }

    private mutating func historyDown(_ out: inout TerminalOutput) {
        guard !secret, browsing >= 0 else { return }
        browsing -= 1
        if browsing == -1 {
            for index in 0..<draftCount { line[index] = draft[index] }
            count = draftCount
            overflow = draftOverflow
            cursor = count
            refresh(&out)
        } else {
            loadHistory(&out)
        }
    }

    private mutating func loadHistory(_ out: inout TerminalOutput) {
        let slot = (historyStart + historyCount - 1 - browsing) % Self.historyCapacity
        count = historyLengths[slot]
        for index in 0..<count { line[index] = history[slot * Self.maximumLength + index] }
        cursor = count
        overflow = 0
        refresh(&out)
    }

    // MARK: Completion

    private mutating func complete(_ out: inout TerminalOutput) {
        if secret { return }
        // Which word is being completed: the command (no space before the cursor) or its first argument.
        var wordStart = cursor
        while wordStart > 0 && line[wordStart - 1] != 0x20 { wordStart -= 1 }
        var commandEnd = 0
        while commandEnd < count && line[commandEnd] != 0x20 { commandEnd += 1 }
        var spacesBefore = 0
        var index = 0
        var inWord = false
        while index < wordStart {
            if line[index] == 0x20 { if inWord { spacesBefore += 1 }; inWord = false } else { inWord = true }
            index += 1
        }
        if spacesBefore > 1 { return }                          // only the command and its first argument
        let lineCopy = line                                     // read while `self` is changed below
        let found: (word: StaticString, matches: Int, common: Int, prefix: Int)? = lineCopy.withUnsafeBufferPointer { bytes in
            let prefix = UnsafeBufferPointer(rebasing: bytes[wordStart..<cursor])
            let words = wordStart == 0 ? table.names : table.arguments(of: UnsafeBufferPointer(rebasing: bytes[0..<commandEnd]))
            // Plain index loops: no closures capturing counters (those are boxed in debug builds).
            var firstIndex = -1
            var matches = 0
            var common = 0
            for index in 0..<words.count where words[index].hasPrefix(prefix) {
                matches += 1
                if firstIndex < 0 {
                    firstIndex = index
                    common = words[index].utf8CodeUnitCount
                } else {
                    common = min(common, Self.sharedPrefix(words[firstIndex], words[index]))
                }
            }
            guard firstIndex >= 0 else { return nil }
            if matches > 1 && common == prefix.count {
                // Several candidates and nothing more in common: list them under the line.
                out.append("\r\n")
                for index in 0..<words.count where words[index].hasPrefix(prefix) {
                    out.append(words[index])
                    out.append("  ")
                }
                out.append("\r\n")
            }
            return (words[firstIndex], matches, common, prefix.count)
        }
        guard let found else { return }
        if found.common > found.prefix || found.matches == 1 {
            found.word.withUTF8Buffer { word in
                for position in found.prefix..<found.common { insertQuietly(word[position]) }
            }
            if found.matches == 1 { insertQuietly(0x20) }
        }
        refresh(&out)
    }

    private mutating func insertQuietly(_ byte: UInt8) {
        guard count < Self.maximumLength else { return }
        var index = count
        while index > cursor { line[index] = line[index - 1]; index -= 1 }
        line[cursor] = byte
        count += 1
        cursor += 1
    }

    private static func sharedPrefix(_ a: StaticString, _ b: StaticString) -> Int {
        a.withUTF8Buffer { x in
            b.withUTF8Buffer { y in
                var length = 0
                while length < x.count && length < y.count && x[length] == y[length] { length += 1 }
                return length
            }
        }
    }

    /// Redraws the prompt and line, and puts the terminal's cursor where the editor's is.
    private mutating func refresh(_ out: inout TerminalOutput) {
        out.append("\r")
        if colour { out.append("\u{1B}[1;32m") }
        out.append(prompt)
        if colour { out.append("\u{1B}[0m") }
        if secret {                                             // a PIN: the prompt alone
            out.append("\u{1B}[K")
            return
        }
        for index in 0..<count { out.append(line[index]) }
        out.append("\u{1B}[K")
        if cursor < count {
            out.append("\u{1B}[")
            out.append(decimal: count - cursor)
            out.append(UInt8(ascii: "D"))
        }
    }
}
