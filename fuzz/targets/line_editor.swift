/// fuzz: terminal bytes fed one by one to LineEditor as the console session drives it (prompt after each event, PIN prompts, log lines, output drained every few bytes into a terminal emulator); the cursor stays in the line, the line within maximumLength, the history within its capacity and as long as a model's, the screen shows the prompt and line with the cursor in place (a PIN never), a submitted line is the line shown, and feeding allocates nothing
@testable import NearcastCore

/// Input: drain interval (byte % 16 + 1 bytes), flags (bit 0 colour, bit 1: 0xFF asks for a PIN,
/// bit 2: 0xFE prints a log line above), then the bytes typed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineEditor(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let interval = Int(input.byte() % 16) + 1
    let flags = input.byte()
    let typed = input.rest()

    var editor = LineEditor(table: consoleTable, prompt: commandPrompt)
    editor.colour = flags & 1 != 0
    var out = TerminalOutput()
    var screen = Terminal()
    var history: [[UInt8]] = []
    var secret = false
    var fedSinceEvent = 0                                   // bytes fed since the last event
    var filled = false                                      // the line was full since then
    var promptText = Array("nearcast> ".utf8)
    editor.showPrompt(into: &out)
    screen.take(&out)

    /// The screen must show what the editor holds (when it has been told everything).
    func checkScreen(_ editor: LineEditor, _ out: TerminalOutput, _ screen: Terminal) {
        guard !screen.lost else { return }
        let line = editor.withCurrentLine { Array($0) }
        if secret {
            require(screen.row == promptText && screen.column == promptText.count,
                    "while a PIN is typed the screen shows \(String(decoding: screen.row, as: UTF8.self).debugDescription)")
        } else {
            require(screen.row == promptText + line,
                    "the screen shows \(String(decoding: screen.row, as: UTF8.self).debugDescription), the line is \(String(decoding: line, as: UTF8.self).debugDescription)")
            require(screen.column == promptText.count + editor.cursorPosition,
                    "the terminal's cursor is at \(screen.column), the editor's at \(editor.cursorPosition) after a prompt of \(promptText.count)")
        }
    }

    for (index, byte) in typed.enumerated() {
        if byte == 0xFF && flags & 2 != 0 {
            // A command asks for a PIN (ConsoleSession.askSecret), then the prompt is shown.
            secret = true
            editor.secret = true
            editor.prompt = "PIN: "
            promptText = Array("PIN: ".utf8)
            editor.showPrompt(into: &out)
            screen.take(&out)
            checkScreen(editor, out, screen)
            continue
        }
        if byte == 0xFE && flags & 4 != 0 {
            logLine.withUTF8Buffer { editor.printAbove($0, into: &out) }
            screen.take(&out)
            require(screen.lost || screen.previousRow == Array("\(logLine)".utf8), "the log line shows as \(screen.previousRow)")
            checkScreen(editor, out, screen)
            continue
        }
        let before = editor.withCurrentLine { Array($0) }
        // The first time a path runs, the runtime may build type metadata (once per process):
        // the byte goes to a copy first, uncounted.
        var warm = editor, warmOut = out
        _ = warm.feed(byte, into: &warmOut)
        var event: LineEditor.Event?
        let allocations = AllocationCounter.allocations { event = editor.feed(byte, into: &out) }
        require(allocations == 0, "feeding byte \(byte) allocated \(allocations) times")

        let count = editor.withCurrentLine { $0.count }
        require(count <= LineEditor.maximumLength, "a line of \(count) bytes")
        fedSinceEvent += 1
        if count == LineEditor.maximumLength { filled = true }
        require(editor.cursorPosition >= 0 && editor.cursorPosition <= count,
                "cursor at \(editor.cursorPosition) in a line of \(count)")

        if let event {
            screen.take(&out)
            switch event {
            case .line:
                let submitted = editor.withSubmittedLine { Array($0) }
                require(submitted == before, "submitted \(submitted), the line was \(before)")
                if !secret {
                    require(screen.lost || screen.previousRow == promptText + submitted,
                            "submitted \(String(decoding: submitted, as: UTF8.self).debugDescription), the screen showed \(String(decoding: screen.previousRow, as: UTF8.self).debugDescription)")
                    if !submitted.isEmpty && submitted.contains(where: { $0 != 0x20 }) && history.last != submitted {
                        history.append(submitted)
                        if history.count > LineEditor.historyCapacity { history.removeFirst() }
                    }
                }
            case .tooLong(let length):
                // Refused because bytes were dropped at the limit: the length counts them, also
                // when the line was shortened again afterwards (the dropped bytes are gone). The
                // line may have been filled by a recalled history line, so only the dropped part
                // (length - kept) is bounded by the bytes typed.
                require(filled, "refused a line that never reached \(LineEditor.maximumLength) bytes")
                require(length > before.count && length - before.count <= fedSinceEvent,
                        "refused a line of \(length) bytes: \(before.count) kept, \(fedSinceEvent) fed")
            case .interrupt, .endOfInput:
                break
            }
            require(count == 0 && editor.cursorPosition == 0, "the line is not cleared after \(event)")
            fedSinceEvent = 0
            filled = false
            if secret {                                     // ConsoleSession.endSecret
                secret = false
                editor.secret = false
                editor.prompt = commandPrompt
                promptText = Array("nearcast> ".utf8)
            }
            editor.showPrompt(into: &out)
        }
        require(editor.historyLength <= LineEditor.historyCapacity, "\(editor.historyLength) lines in the history")
        require(editor.historyLength == history.count,
                "\(editor.historyLength) lines in the history, \(history.count) remembered")
        // ConsoleSession moves the screen out once it is half full, and after every event.
        if event != nil || index % interval == interval - 1 || out.count > TerminalOutput.capacity / 2 {
            screen.take(&out)
            checkScreen(editor, out, screen)
        }
    }
    return 0
}

let commandPrompt: StaticString = "nearcast> "
let logLine: StaticString = "12:00:01 burst sent: direct 0102"

/// The console's table (as in LineEditorTests), with a command whose name prefixes another.
let consoleTable = CommandTable([
    .init("help"), .init("status", ["--json"]), .init("publish", ["direct", "eid"]),
    .init("publications"), .init("consent", ["grant", "deny", "show"]), .init("leds", ["test"]),
    .init("pin", ["set", "settle", "clear"]),
])

/// A one-line terminal: what the editor's output does to the current row and the cursor.
/// Fails on any byte or sequence the editor has no business sending.
struct Terminal {
    var row: [UInt8] = []
    var column = 0
    /// The row before the last line feed.
    var previousRow: [UInt8] = []
    /// Output was dropped: the screen no longer follows the editor (until it is redrawn).
    var lost = false
    private var sequence: [UInt8]?

    mutating func take(_ out: inout TerminalOutput) {
        if out.dropped > 0 { lost = true }                  // a gap, maybe inside a sequence
        out.drain { raw in
            if !lost { for byte in raw { feed(byte) } }
            return raw.count
        }
    }

    private mutating func feed(_ byte: UInt8) {
        if var sequence {
            sequence.append(byte)
            self.sequence = sequence
            if sequence.count == 1 {
                require(byte == UInt8(ascii: "["), "ESC followed by \(byte)")
            } else if (0x40...0x7E).contains(byte) {
                perform(final: byte, parameters: Array(sequence[1..<sequence.count - 1]))
                self.sequence = nil
            } else {
                require((0x30...0x3F).contains(byte) && sequence.count < 12, "bad sequence \(sequence)")
            }
            return
        }
        switch byte {
        case 0x1B: sequence = []
        case 0x0D: column = 0
        case 0x0A:
            previousRow = row
            row = []
        case 0x07: break                                     // bell
        case 0x20...0x7E:
            while row.count < column { row.append(0x20) }
            if column < row.count { row[column] = byte } else { row.append(byte) }
            column += 1
        default:
            fatalError("fuzz: the editor wrote control byte \(byte)")
        }
    }

    private mutating func perform(final: UInt8, parameters: [UInt8]) {
        let text = String(decoding: parameters, as: UTF8.self)
        let n = Int(text) ?? 1
        switch final {
        case UInt8(ascii: "K"):
            require(parameters.isEmpty, "ESC[\(text)K")
            if row.count > column { row.removeSubrange(column...) }
        case UInt8(ascii: "D"):
            require(n >= 1 && column - n >= 0, "ESC[\(text)D from column \(column)")
            column -= n
        case UInt8(ascii: "C"):
            require(parameters.isEmpty, "ESC[\(text)C")
            column += 1
        case UInt8(ascii: "J"):
            require(text == "2", "ESC[\(text)J")
            row = []
        case UInt8(ascii: "H"):
            require(parameters.isEmpty, "ESC[\(text)H")
            column = 0
        case UInt8(ascii: "m"):
            require(text == "0" || text == "1;32", "ESC[\(text)m")
        default:
            fatalError("fuzz: the editor wrote ESC[\(text)\(UnicodeScalar(final))")
        }
    }
}
