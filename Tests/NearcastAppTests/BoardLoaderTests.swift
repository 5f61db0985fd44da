import XCTest
@testable import NearcastApp
@testable import NearcastDrivers

final class BoardLoaderTests: XCTestCase {
    /// The repository's boards folder, found from this file's path.
    static let boardsDirectory: String = {
        var path = #filePath
        for _ in 0..<3 { path = FileSystem.directoryName(of: path) }
        return path + "/boards"
    }()

    func testEveryShippedBoardIsValid() throws {
        let names = BoardLoader.boardNames(in: Self.boardsDirectory)
        XCTAssertEqual(Set(names).intersection(["rpi3b", "rpi4b", "rpi5", "zero2w", "sim", "pc"]).count, 6)
        for name in names {
            let board = try BoardLoader.load("\(Self.boardsDirectory)/\(name).json5")
            XCTAssertEqual(board.name, name, "a board's name matches its file")
            XCTAssertEqual(board.leds.count, 4)
        }
    }

    /// The laptop as the box: ALSA's default device, which must open at start; no GPIO; the
    /// machine's own controller; consent given by whoever starts it; only the ALSA devices of
    /// boxes wait out a missing card.
    func testThePCBoard() throws {
        let pc = try BoardLoader.load("\(Self.boardsDirectory)/pc.json5")
        XCTAssertEqual(pc.audioOutput.driver, .alsa)
        XCTAssertEqual(pc.audioOutput.device, "default")
        XCTAssertTrue(pc.audioOutput.requiredAtStart)
        XCTAssertEqual(pc.gpio.driver, .sim)
        XCTAssertEqual(pc.bluetooth.driver, .hci)
        XCTAssertTrue(pc.consentGrantedAtStart)
        XCTAssertFalse(pc.isSimulated)
        for name in ["rpi3b", "rpi4b", "rpi5", "zero2w", "vm"] {
            XCTAssertFalse(try BoardLoader.load("\(Self.boardsDirectory)/\(name).json5").audioOutput.requiredAtStart, name)
        }
    }

    func testBoardFacts() throws {
        let pi4 = try BoardLoader.load("\(Self.boardsDirectory)/rpi4b.json5")
        let pi5 = try BoardLoader.load("\(Self.boardsDirectory)/rpi5.json5")
        let sim = try BoardLoader.load("\(Self.boardsDirectory)/sim.json5")
        XCTAssertEqual(pi4.gpio.chip, "pinctrl-bcm2711")
        XCTAssertEqual(pi5.gpio.chip, "pinctrl-rp1", "the Pi 5's header GPIO is on RP1, named by label")
        XCTAssertTrue(pi4.audioOutput.device.contains("CARD=Headphones"))
        XCTAssertTrue(pi5.audioOutput.device.contains("CARD="), "no jack on a Pi 5: a USB card by name")
        XCTAssertFalse(pi4.consentGrantedAtStart)
        XCTAssertTrue(sim.consentGrantedAtStart)
        XCTAssertTrue(sim.isSimulated)
    }

    private let valid = """
        {
          name: "test",
          gpio: { chip: "pinctrl-bcm2711", lines: 58 },
          leds: {
            status: { line: 17 },
            audio: { line: 27, activeLow: true },
            ble: { line: 22 },
            consent: { line: 23 },
          },
          audio: { output: { device: "hw:CARD=Headphones,DEV=0", rate: 48000, period: 1024 } },
          bluetooth: { index: 0 },
          console: { tty: "/dev/serial0", baud: 115200 },
        }
        """

    private func error(for text: String) -> String {
        do {
            _ = try BoardLoader.parse(text, file: "boards/test.json5")
            return "no error"
        } catch {
            return error.description
        }
    }

    func testValidBoardParses() throws {
        let board = try BoardLoader.parse(valid, file: "boards/test.json5")
        XCTAssertEqual(board.leds[.audio], Board.LED(line: 27, activeLow: true))
        XCTAssertEqual(board.audioOutput.driver, .alsa)
        XCTAssertEqual(board.bluetooth.index, 0)
    }

    func testUnknownKeyIsNamed() {
        let text = valid.replacingOccurrences(of: "ble: { line: 22 }", with: "ble: { line: 22, colour: \"blue\" }")
        XCTAssertEqual(error(for: text), "boards/test.json5:7:30: leds.ble.colour: unknown key (known keys: activeLow, line)")
    }

    func testMissingLEDIsNamed() {
        let text = valid.replacingOccurrences(of: "consent: { line: 23 },", with: "")
        XCTAssertEqual(error(for: text), "boards/test.json5:4:9: leds.consent: missing (every board needs the consent LED)")
    }

    func testLineOutOfRangeIsNamed() {
        let text = valid.replacingOccurrences(of: "line: 17", with: "line: 60")
        XCTAssertEqual(error(for: text), "boards/test.json5:5:21: leds.status.line: 60 is out of range for chip pinctrl-bcm2711 (0...57)")
    }

    func testDuplicateLineIsNamed() {
        let text = valid.replacingOccurrences(of: "line: 22", with: "line: 17")
        XCTAssertEqual(error(for: text), "boards/test.json5:7:18: leds.ble.line: line 17 is already used by leds.status")
    }

    func testWrongTypesAndSyntaxAreNamed() {
        XCTAssertEqual(error(for: valid.replacingOccurrences(of: "rate: 48000", with: "rate: \"fast\"")),
                       "boards/test.json5:10:64: audio.output.rate: expected a whole number, found \"fast\"")
        XCTAssertEqual(error(for: valid.replacingOccurrences(of: "rate: 48000", with: "rate: 16000")),
                       "boards/test.json5:10:64: audio.output.rate: unsupported sample rate 16000 Hz (the modem works at 44100, 48000, 88200, 96000)")
        XCTAssertEqual(error(for: valid.replacingOccurrences(of: "hw:CARD=Headphones,DEV=0", with: "hw:0,0")),
                       "boards/test.json5:10:30: audio.output.device: 'hw:0,0' names card 0 by number; card numbers move between boots, use CARD=<name>")
        XCTAssertEqual(error(for: valid.replacingOccurrences(of: "baud: 115200", with: "baud: 115201")),
                       "boards/test.json5:12:41: console.baud: 115201 is not a standard baud rate")
        XCTAssertEqual(error(for: "{ name: \"x\", gpio: { chip: 0 lines: 8 } }"),
                       "boards/test.json5:1:30: expected ',' or '}' after the value of 'chip'")
        XCTAssertEqual(error(for: "[1, 2]"), "boards/test.json5:1:1: expected an object, found an array")
    }

    func testAMicrophoneRateTheModemCannotUseIsRefusedAtLoad() {
        let text = valid.replacingOccurrences(of: "period: 1024 } }",
                                              with: "period: 1024 }, input: { device: \"hw:CARD=Device,DEV=0\", rate: 22050 } }")
        let message = error(for: text)
        XCTAssertTrue(message.hasPrefix("boards/test.json5:10:") && message.hasSuffix(
            ": audio.input.rate: unsupported sample rate 22050 Hz (the modem works at 44100, 48000, 88200, 96000)"), message)
    }

    func testTheBoardsBandIsReadAndAWrongOneNamed() throws {
        XCTAssertEqual(try BoardLoader.parse(valid, file: "boards/test.json5").audioBand, .high, "high when the board does not say")
        let both = valid.replacingOccurrences(of: "period: 1024 } }", with: "period: 1024 }, band: \"both\" }")
        XCTAssertEqual(try BoardLoader.parse(both, file: "boards/test.json5").audioBand, .both)
        let wrong = valid.replacingOccurrences(of: "period: 1024 } }", with: "period: 1024 }, band: \"ultrasonic\" }")
        let message = error(for: wrong)
        XCTAssertTrue(message.hasPrefix("boards/test.json5:10:") && message.hasSuffix(": audio.band: 'ultrasonic' is not one of high, low, both"), message)
    }

    func testUnreadableFileIsNamed() {
        XCTAssertThrowsError(try BoardLoader.load("/nonexistent/dir/x.json5")) {
            XCTAssertEqual("\($0)", "/nonexistent/dir/x.json5: cannot read: No such file or directory")
        }
        XCTAssertThrowsError(try BoardLoader.load("no-such-board")) {
            XCTAssertTrue("\($0)".hasPrefix("no-such-board: no such board"), "\($0)")
        }
    }
}

final class JSON5ParserTests: XCTestCase {
    func testJSON5Syntax() throws {
        let node = try JSON5Parser.parse("""
            // comment
            { a: 1, 'b': "two\\n", c: [0x1F, .5, -3e2, +1,], /* block */ d: true, e: null, $f_1: 'it\\'s', }
            """)
        guard case .object(let members) = node.value else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.key), ["a", "b", "c", "d", "e", "$f_1"])
        XCTAssertEqual(members[1].value.value, .string("two\n"))
        XCTAssertEqual(members[2].value.value, .array([
            JSON5Node(value: .number(31), line: 2, column: 27), JSON5Node(value: .number(0.5), line: 2, column: 33),
            JSON5Node(value: .number(-300), line: 2, column: 37), JSON5Node(value: .number(1), line: 2, column: 43),
        ]))
        XCTAssertEqual(members[5].value.value, .string("it's"))
    }

    func testSyntaxErrorsHavePositions() {
        let cases: [(String, String)] = [
            ("{ a: 1, a: 2 }", "1:9: duplicate key 'a'"),
            ("{ a: yes }", "1:6: unexpected word 'yes', expected a value (strings need quotes)"),
            ("{ a: \"open", "1:6: unterminated string"),
            ("{ a: 1 } extra", "1:10: unexpected text after the value"),
            ("/* never closed", "1:1: unterminated /* comment"),
            (String(repeating: "[", count: 100), "1:65: nesting deeper than 64 levels"),
            ("", "1:1: unexpected end of file, expected a value"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try JSON5Parser.parse(text), text) { XCTAssertEqual("\($0)", expected, text) }
        }
    }
}
