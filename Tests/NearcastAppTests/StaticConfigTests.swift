import XCTest
@testable import NearcastApp
import NearcastCore

final class StaticConfigTests: XCTestCase {
    func testEveryKeyIsReadAndOptional() throws {
        let config = try StaticConfig.parse("""
            // the installer's settings
            { version: 1, board: "rpi4b", mediums: "ble", audioInterval: 2.5, audioLevel: 40,
              audioBand: "both", bleInterval: 250, txPower: -8, console: "/dev/serial0", debug: true, }
            """, file: "nearcast.json5")
        XCTAssertEqual(config, StaticConfig(board: "rpi4b", mediums: .ble, audioInterval: 2.5, audioLevel: 40, audioBand: .both, bleInterval: 250,
                                            txPower: -8, console: "/dev/serial0", debug: true))
        XCTAssertEqual(try StaticConfig.parse("{}", file: "empty.json5"), StaticConfig())
        XCTAssertEqual(try StaticConfig.parse(#"{ name: "Room 101" }"#, file: "n.json5").name, "Room 101")
    }

    func testMistakesNameFileLineAndKey() {
        let cases: [(String, String)] = [
            ("{\n  audioLevel: 150,\n}", "c.json5:2:15: audioLevel: 150 is out of range (1...100)"),
            ("{\n  mediums: \"radio\",\n}", "c.json5:2:12: mediums: 'radio' is not one of audio, ble, both"),
            ("{\n  audioInterval: 0.1,\n}", "c.json5:2:18: audioInterval: 0.100 is out of range (0.5...3600.0)"),
            ("{\n  bleIntervl: 100,\n}", "c.json5:2:15: bleIntervl: unknown key"),
            ("{\n  console: \"ttyS0\",\n}", "c.json5:2:12: console: 'ttyS0': use stdio, none or a serial device path"),
            ("{\n  version: 2,\n}", "c.json5:2:12: version: version 2 is not one this build reads (1)"),
            ("{\n  audioBand: \"mid\",\n}", "c.json5:2:14: audioBand: 'mid' is not one of high, low, both"),
            ("{\n  audioSweepEvery: 2,\n}", "c.json5:2:20: audioSweepEvery: 2 is out of range (5...3600)"),
            ("{\n  name: \"\",\n}", "c.json5:2:9: name: '': give 1 to 100 characters"),
            ("{ board: \"rpi4b\"", "c.json5:1:"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try StaticConfig.parse(text, file: "c.json5"), text) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(error) does not start with \(expected)")
            }
        }
    }

    func testChangesAreListedPerKey() {
        let old = StaticConfig(board: "rpi4b", audioLevel: 50)
        let new = StaticConfig(board: "rpi5", audioLevel: 30, audioBand: .low, audioSweepEvery: 20, txPower: -4)
        XCTAssertEqual(new.changes(from: old).map(\.change),
                       ["board rpi4b -> rpi5", "audioLevel 50 -> 30", "audioBand (default) -> low", "audioSweepEvery (default) -> 20",
                        "txPower (default) -> -4"])
        XCTAssertTrue(old.changes(from: old).isEmpty)
    }
}
