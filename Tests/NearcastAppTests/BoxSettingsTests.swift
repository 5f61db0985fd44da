import Foundation
import XCTest
@testable import NearcastApp
import NearcastCore

/// The table of settings against every surface derived from it: each test fails when a row and
/// a surface disagree (a flag the command line does not take, a key the config file rejects, a
/// setting the reload neither applies nor reports, a `config save` setting the console does
/// not show, a page that has fallen behind).
final class BoxSettingsTests: XCTestCase {
    /// A value for each key the config file takes. A row added to the table without one here
    /// fails ``testEveryConfigKeyIsReadAndEveryOtherRefused``, which is the point: look at it.
    static let samples: [String: String] = [
        "name": #""Room 101""#, "board": #""rpi4b""#, "mediums": #""ble""#, "audioInterval": "2.5", "audioLevel": "40",
        "audioBand": #""low""#, "audioSweepEvery": "30", "bleInterval": "250", "txPower": "-8", "console": #""/dev/serial0""#,
        "debug": "true", "publications": #"["direct:c0ffee@ble"]"#, "hub": #"{ url: "https://hub.example.org", key: "ncsec_x" }"#,
    ]

    func testKeysAndFlagsAreUnique() {
        let keys = BoxSettings.all.map(\.key), flags = BoxSettings.flags.map(\.name)
        XCTAssertEqual(Set(keys).count, keys.count)
        XCTAssertEqual(Set(flags).count, flags.count)
        XCTAssertTrue(BoxSettings.all.allSatisfy { !$0.help.isEmpty && !$0.type.isEmpty && !$0.sources.isEmpty })
    }

    /// Every row the config file takes is read into its field (and shown by the reload's
    /// comparisons); every row it does not take is an unknown key.
    func testEveryConfigKeyIsReadAndEveryOtherRefused() throws {
        let inFile = BoxSettings.all.filter(\.isInConfigFile)
        XCTAssertEqual(Set(Self.samples.keys), Set(inFile.map(\.key)), "a sample value for each config key")
        for setting in inFile {
            let config = try StaticConfig.parse("{ \(setting.key): \(Self.samples[setting.key]!) }", file: "c.json5")
            XCTAssertNotNil(setting.shown(config), setting.key)
            XCTAssertFalse(setting.isSame(config, StaticConfig()), setting.key)
        }
        for setting in BoxSettings.all where !setting.isInConfigFile {
            XCTAssertThrowsError(try StaticConfig.parse("{ \(setting.key): 1 }", file: "c.json5")) { error in
                XCTAssertTrue("\(error)".contains("\(setting.key): unknown key"), "\(error)")
            }
            XCTAssertTrue(setting.flags.isEmpty, "\(setting.key): a flag for a setting the config file cannot hold")
        }
    }

    /// `nearcast run` takes its own options and exactly the table's flags, and a flag sets its
    /// setting in the command line's layer.
    func testTheRunCommandTakesTheTablesFlags() throws {
        let own = ["config", "state-dir", "duration", "payload", "kind", "exponent", "subscribe", "lost-after"]
        XCTAssertEqual(RunCommand.node.arguments.map(\.name), own + BoxSettings.flags.map(\.name))
        for setting in BoxSettings.all where setting.sources.contains(.commandLine) {
            XCTAssertFalse(setting.flags.isEmpty, "\(setting.key) comes from the command line but has no flag")
        }
        let values: [String: [String]] = [
            "name": ["--name", "Hall"], "board": ["--board", "rpi4b"], "mediums": ["--mediums", "ble"],
            "audioInterval": ["--interval", "2"], "audioBand": ["--band", "low"], "audioSweepEvery": ["--sweep-every", "30"],
            "console": ["--console", "none"], "debug": ["--debug"],
            "hub": ["--hub", "https://hub.example.org", "--hub-key", "ncsec_x"],
        ]
        let flagged = BoxSettings.all.filter { !$0.flags.isEmpty && $0.key != "publications" }   // --publish: see RunCommand.run
        XCTAssertEqual(Set(values.keys), Set(flagged.map(\.key)))
        for setting in flagged {
            let parsed = try CommandLineParser(root: NearcastCommand.tree).parse(["run"] + values[setting.key]!)
            guard case .run(let arguments, _) = parsed else { return XCTFail("\(parsed)") }
            XCTAssertNotNil(setting.shown(try RunCommand(arguments).commandLine), setting.key)
        }
    }

    /// A reload compares every setting the table says it applies or reports, and applies each
    /// one the table says it applies.
    func testTheReloadComparesAndAppliesWhatTheTableSays() throws {
        var text = "{"
        for (key, value) in Self.samples { text += " \(key): \(value)," }
        let changed = try StaticConfig.parse(text + " }", file: "c.json5")
        let compared = BoxSettings.all.filter { $0.onReload == .applied || $0.onReload == .needsRestart }
        XCTAssertEqual(changed.changes(from: StaticConfig()).map(\.key), compared.map(\.key))
        let effective = SettingsResolver.resolve(board: try BoardLoader.load("sim"), config: changed, commandLine: SettingsLayer(), saved: nil)
        for setting in BoxSettings.all {
            let applies = ConfigReloader.apply(setting.key, effective, into: nil) != nil
            XCTAssertEqual(applies, setting.onReload == .applied, "\(setting.key): the reload and the table disagree")
        }
    }

    /// `config show` has a line for each setting `config save` keeps, and the saved settings
    /// hold each of them.
    func testConfigShowAndTheSavedSettingsCoverWhatConfigSaveKeeps() {
        let saved = SavedSettings(SettingsLayer(mediums: .ble, mode: .both, audioLevel: 70, bleInterval: 500,
                                  txPower: -12, debug: false, publications: []))
        let kept = BoxSettings.all.filter(\.keptByConfigSave)
        XCTAssertEqual(kept.compactMap { $0.consoleLine(saved.layer) },
                       ["strategy mediums ble", "strategy mode both", "audio level 70 %", "audio band high", "ble interval 500 ms",
                        "ble txpower -12 dBm", "debug off", "publications: none"])
        for setting in BoxSettings.all {
            XCTAssertEqual(setting.shown(saved.layer) != nil, setting.keptByConfigSave, "\(setting.key): saved settings and the table disagree")
        }
    }

    /// docs/settings.md shows the table as it is.
    func testTheSettingsPageShowsTheTable() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/settings.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        XCTAssertTrue(text.contains(BoxSettings.markdownTable), "docs/settings.md: paste the table again:\n\(BoxSettings.markdownTable)")
    }
}
