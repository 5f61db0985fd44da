import XCTest
@testable import NearcastCore

final class LineEditorTests: XCTestCase {
    static let table = CommandTable([
        .init("help"), .init("status", ["--json"]), .init("publish", ["direct", "eid"]),
        .init("publications"), .init("consent", ["grant", "deny", "show"]), .init("leds", ["test"]),
    ])

    private struct Session {
        var editor = LineEditor(table: LineEditorTests.table)
        var out = TerminalOutput()
        var lines: [String] = []
        var events: [LineEditor.Event] = []

        mutating func type(_ text: String) {
            for byte in text.utf8 {
                if let event = editor.feed(byte, into: &out) {
                    events.append(event)
                    if event == .line { lines.append(editor.withSubmittedLine { String(decoding: $0, as: UTF8.self) }) }
                }
            }
        }

        var current: String { editor.withCurrentLine { String(decoding: $0, as: UTF8.self) } }
        var screen: String {
            mutating get {
                var text = ""
                out.drain { raw in text = String(decoding: raw, as: UTF8.self); return raw.count }
                return text
            }
        }
    }

    func testTypingAndAllThreeLineEndings() {
        var s = Session()
        s.type("status\rhelp\nleds\r\npublications\n\r")
        XCTAssertEqual(s.lines, ["status", "help", "leds", "publications", ""], "CR, LF, CRLF; LF CR is two lines")
    }

    func testASecretLineIsNeverEchoedCompletedOrRemembered() {
        var s = Session()
        s.type("status\r")
        _ = s.screen
        s.editor.secret = true
        s.editor.prompt = "PIN: "
        s.editor.showPrompt(into: &s.out)
        s.type("12\u{1B}[D9\u{7F}34\t\u{1B}[A")  // digits, left, backspace, Tab, up
        let shown = s.screen
        XCTAssertTrue(shown.contains("PIN: "), shown)
        XCTAssertFalse(shown.contains(where: { $0.isNumber }), "no digit of the PIN echoed: \(shown.debugDescription)")
        XCTAssertFalse(shown.contains("status"), "the history is not walked while a secret is typed")
        XCTAssertEqual(s.current, "1342", "editing still works on the hidden line")
        s.type("\r")
        XCTAssertEqual(s.lines.last, "1342")
        s.editor.secret = false
        s.editor.prompt = "nearcast> "
        s.type("\u{1B}[A")
        XCTAssertEqual(s.current, "status", "the PIN is not in the history")
        s.type("\u{1B}[A")
        XCTAssertEqual(s.current, "status")
    }

    func testCursorMovementAndEditingKeys() {
        var s = Session()
        s.type("sttus")
        s.type("\u{1B}[D\u{1B}[D\u{1B}[D")      // left x3: after "st"
        s.type("a")
        XCTAssertEqual(s.current, "status")
        s.type("\u{01}x\u{05}y")                  // Ctrl-A insert, Ctrl-E insert
        XCTAssertEqual(s.current, "xstatusy")
        s.type("\u{1B}[H\u{1B}[3~")              // Home, Delete
        XCTAssertEqual(s.current, "statusy")
        s.type("\u{1B}[F\u{7F}")                 // End, Backspace
        XCTAssertEqual(s.current, "status")
        s.type(" --json extra\u{17}")             // Ctrl-W
        XCTAssertEqual(s.current, "status --json ")
        s.type("\u{1B}OH\u{06}\u{06}\u{0B}")     // SS3 Home, Ctrl-F x2, Ctrl-K
        XCTAssertEqual(s.current, "st")
        s.type("atus\u{02}\u{02}\u{15}")         // Ctrl-B x2, Ctrl-U
        XCTAssertEqual(s.current, "us")
        XCTAssertEqual(s.editor.cursorPosition, 0)
        s.type("\u{1B}[4~\u{1B}[1~\u{1B}[8~")    // End, Home, End variants
        XCTAssertEqual(s.editor.cursorPosition, 2)
    }

    func testHistoryKeepsTheLast32LinesAndTheLineBeingTyped() {
        var s = Session()
        for index in 0..<40 { s.type("line \(index)\r") }
        XCTAssertEqual(s.editor.historyLength, 32)
        s.type("draft")
        s.type("\u{1B}[A")
        XCTAssertEqual(s.current, "line 39")
        s.type("\u{1B}[A\u{1B}[A")
        XCTAssertEqual(s.current, "line 37")
        for _ in 0..<40 { s.type("\u{1B}[A") }
        XCTAssertEqual(s.current, "line 8", "the oldest kept")
        for _ in 0..<31 { s.type("\u{1B}[B") }
        XCTAssertEqual(s.current, "line 39")
        s.type("\u{1B}[B")
        XCTAssertEqual(s.current, "draft")
        s.type("\r\u{1B}[A")
        XCTAssertEqual(s.current, "draft")
        s.type("\r\r\u{1B}[A\u{1B}[A")
        XCTAssertEqual(s.current, "line 39", "repeats and empty lines are not stored twice")
    }

    func testTabCompletesCommandsAndArguments() {
        var s = Session()
        s.type("st\t")
        XCTAssertEqual(s.current, "status ")
        s.type("--\t")
        XCTAssertEqual(s.current, "status --json ")
        s.type("\u{15}pub\t")
        XCTAssertEqual(s.current, "publi", "the common prefix of publish and publications")
        _ = s.screen
        s.type("\t")
        XCTAssertTrue(s.screen.contains("publish  publications"), "a second tab lists the candidates")
        s.type("s\t")
        XCTAssertEqual(s.current, "publish ")
        s.type("e\t")
        XCTAssertEqual(s.current, "publish eid ")
        s.type("\u{15}consent g\t")
        XCTAssertEqual(s.current, "consent grant ")
        s.type("\u{15}nothing\t")
        XCTAssertEqual(s.current, "nothing")
    }

    func testAnOverlongDraftStaysRefusedAfterWalkingTheHistory() {
        var s = Session()
        s.type("status\r")
        s.type(String(repeating: "x", count: 300))
        s.type("\u{1B}[A")
        XCTAssertEqual(s.current, "status")
        s.type("\u{1B}[B\r")
        XCTAssertEqual(s.events.last, .tooLong(length: 300), "the 45 dropped bytes are still counted")
        XCTAssertEqual(s.lines, ["status"], "the cut line did not run")
    }

    func testARecalledFullLineCountsOnlyTheBytesDroppedAfterIt() {
        var s = Session()
        let full = String(repeating: "y", count: LineEditor.maximumLength)
        s.type(full + "\r")
        XCTAssertEqual(s.lines, [full], "exactly the limit is accepted")
        s.type("\u{1B}[A" + String(repeating: "z", count: 18) + "\r")
        XCTAssertEqual(s.events.last, .tooLong(length: LineEditor.maximumLength + 18),
                       "the recalled line and the 18 bytes that did not fit")
    }

    func testOverlongLinesAreRefusedWholeAndControlBytesIgnored() {
        var s = Session()
        s.type(String(repeating: "x", count: 300) + "\r")
        XCTAssertEqual(s.events, [.tooLong(length: 300)])
        XCTAssertTrue(s.lines.isEmpty)
        XCTAssertEqual(s.current, "")
        s.type("he\u{00}\u{07}\u{80}\u{FF}lp\r")
        XCTAssertEqual(s.lines, ["help"])
        s.type("abc\u{03}")
        XCTAssertEqual(s.events.last, .interrupt)
        XCTAssertEqual(s.current, "")
        s.type("\u{04}")
        XCTAssertEqual(s.events.last, .endOfInput)
        s.type("\u{1B}[99999999999999999999Zhelp\r")
        XCTAssertEqual(s.lines.last, "help", "an unknown or absurd escape sequence is dropped")
    }

    func testRedrawsPutTheCursorBack() {
        var s = Session()
        s.type("abc")
        XCTAssertEqual(s.screen, "abc", "typing at the end only echoes")
        s.type("\u{1B}[D\u{1B}[DX")
        XCTAssertEqual(s.screen, "\u{1B}[D\u{1B}[D\rnearcast> aXbc\u{1B}[K\u{1B}[2D")
        let log = Array("log line".utf8)
        log.withUnsafeBufferPointer { s.editor.printAbove($0, into: &s.out) }
        XCTAssertEqual(s.screen, "\r\u{1B}[Klog line\r\n\rnearcast> aXbc\u{1B}[K\u{1B}[2D", "log lines go above the line being typed")
    }

    func testTerminalOutputDropsWhenFullAndDrainsPartially() {
        var out = TerminalOutput()
        for _ in 0..<(TerminalOutput.capacity + 10) { out.append(UInt8(ascii: "a")) }
        XCTAssertEqual(out.dropped, 10)
        out.drain { _ in 96 }
        XCTAssertEqual(out.count, TerminalOutput.capacity - 96)
        out.append(decimal: -1205)
        XCTAssertEqual(out[out.count - 5], UInt8(ascii: "-"))
    }
}
