import XCTest
import NearcastCore
@testable import NearcastApp

final class SavedSettingsTests: XCTestCase {
    private let example = SavedSettings(SettingsLayer(mediums: .ble, mode: .both, audioLevel: 30,
                                        bleInterval: 250, txPower: -4, debug: true,
                                        publications: ["direct:c0ffee@ble", "eid:12@both"]))

    func testWhatIsSavedReadsBackTheSame() throws {
        let text = example.text(savedAtBeaconTime: 1234)
        XCTAssertTrue(text.contains("beacon time 1234"))
        XCTAssertEqual(try SavedSettings.parse(text, file: "settings.json5"), example)
    }

    func testEveryDamageNamesFileLineAndKey() {
        let good = example.text(savedAtBeaconTime: 1)
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "audioLevel: 30", with: "audioLevel: 300"), "settings.json5:7:15: audioLevel: 300 is out of range (0...100)"),
            (good.replacingOccurrences(of: "debug: true", with: "debg: true"), "settings.json5:11:9: debg: unknown key"),
            (good.replacingOccurrences(of: "txPower", with: "txPowr"), "settings.json5:4:1: txPower: missing (required)"),
            (good.replacingOccurrences(of: "\"eid:12@both\"", with: "\"eid:99\""), "settings.json5:14:5: publications[1]: 'eid:99' is not a publication"),
            (good.replacingOccurrences(of: "\"ble\", mode", with: "\"wifi\", mode"), "strategy.mediums: 'wifi' is not one of audio, ble, both"),
            (good.replacingOccurrences(of: "version: 1", with: "version: 2"), "version: version 2 is not one this build reads (1)"),
            (good.replacingOccurrences(of: "audioBand: \"high\"", with: "audioBand: \"ultra\""), "settings.json5:8:14: audioBand: 'ultra' is not one of high, low, both"),
            (String(good.prefix(good.count / 2)), "settings.json5:"),
            ("", "settings.json5:"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try SavedSettings.parse(text, file: "settings.json5")) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected) || "\(error)".contains(expected), "\(error) should say \(expected)")
            }
        }
    }

    func testTheBandIsSavedAndAFileFromBeforeTheSecondBandReadsAsHigh() throws {
        var both = example
        both.audioBand = .both
        let text = both.text(savedAtBeaconTime: 7)
        XCTAssertTrue(text.contains("audioBand: \"both\""), text)
        XCTAssertEqual(try SavedSettings.parse(text, file: "settings.json5").audioBand, .both)
        let older = example.text(savedAtBeaconTime: 7).replacingOccurrences(of: "  audioBand: \"high\",\n", with: "")
        XCTAssertFalse(older.contains("audioBand"))
        XCTAssertEqual(try SavedSettings.parse(older, file: "settings.json5"), example)
    }

    func testTheSpecOfARequestIsWhatRunsPublishReads() throws {
        let token = try Token(kind: .direct, hex: "c0ffee")
        XCTAssertEqual(PublicationSpec(PublicationRequest(message: .direct(token), strategy: Strategy(mediums: .audio, mode: .broadcast))).text,
                       "direct:c0ffee@audio")
        let spec = try PublicationSpec.parse("eid:7@ble", defaultExponent: 10)
        XCTAssertEqual(spec, PublicationSpec(kind: .eid(exponent: 7), mediums: .ble))
        let request = PublicationRequest(message: .eid(identityKey: [UInt8](repeating: 1, count: 16), exponent: 7),
                                         strategy: Strategy(mediums: .ble, mode: .broadcast))
        XCTAssertEqual(PublicationSpec(request).text, "eid:7@ble")
        XCTAssertEqual(spec.request(identityKey: { [UInt8](repeating: 1, count: 16) }), request, "and back")
    }
}
