import NearcastCore
import XCTest
@testable import NearcastApp

/// The settings' one precedence: defaults < config file < command line < saved on the console,
/// with the command line's publications replacing the saved ones and debug on when any layer
/// turns it on.
final class SettingsResolverTests: XCTestCase {
    private let board = try! BoardLoader.load("\(BoardLoaderTests.boardsDirectory)/sim.json5")

    func testDefaultsFillWhatNoLayerSays() {
        let resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertEqual(resolved.strategy, Strategy(mediums: .both, mode: .broadcast))
        XCTAssertEqual(resolved.audioLevel, SettingsDefaults.audioLevel)
        XCTAssertEqual(resolved.bleInterval, 100)
        XCTAssertEqual(resolved.txPower, board.bluetooth.txPower)
        XCTAssertEqual(resolved.audioInterval, 1)
        XCTAssertEqual(resolved.console, "stdio")
        XCTAssertFalse(resolved.debug)
        XCTAssertEqual(resolved.publications, ["direct:6e65617263617374@both"])
        XCTAssertEqual(Set(resolved.sources.values), ["default"])
    }

    func testTheBandComesFromTheBoardUnlessALaterLayerSays() {
        var lowBoard = board
        lowBoard.audioBand = .low
        var resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertEqual(resolved.audioBand, .high)
        resolved = SettingsResolver.resolve(board: lowBoard, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertEqual(resolved.audioBand, .low, "the board's band is the default")
        resolved = SettingsResolver.resolve(board: lowBoard, config: SettingsLayer(audioBand: .both), commandLine: SettingsLayer(), saved: nil)
        XCTAssertEqual(resolved.audioBand, .both)
        XCTAssertEqual(resolved.sources["audioBand"], "config file")
        resolved = SettingsResolver.resolve(board: lowBoard, config: SettingsLayer(audioBand: .both),
                                            commandLine: SettingsLayer(audioBand: .high), saved: nil)
        XCTAssertEqual(resolved.audioBand, .high, "the command line over the config file")
    }

    func testTheSweepIntervalHasNoDefaultAndIsNeverSaved() {
        var resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertNil(resolved.values.audioSweepEvery)
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(audioSweepEvery: 30),
                                            commandLine: SettingsLayer(audioSweepEvery: 10), saved: nil)
        XCTAssertEqual(resolved.values.audioSweepEvery, 10, "the command line over the config file")
        XCTAssertEqual(resolved.sources["audioSweepEvery"], "command line")
    }

    func testEachLayerOverridesTheOnesBeforeItWhereItSaysSomething() {
        let config = SettingsLayer(mediums: .ble, audioInterval: 2, audioLevel: 40, bleInterval: 200, txPower: -8, console: "/dev/serial0")
        let commandLine = SettingsLayer(mediums: .audio, audioInterval: 3, console: "none")
        var resolved = SettingsResolver.resolve(board: board, config: config, commandLine: commandLine, saved: nil)
        XCTAssertEqual(resolved.strategy.mediums, .audio, "the command line over the config file")
        XCTAssertEqual(resolved.audioLevel, 40, "the config file over the defaults")
        XCTAssertEqual(resolved.audioInterval, 3)
        XCTAssertEqual(resolved.console, "none")
        XCTAssertEqual(resolved.publications, ["direct:6e65617263617374@audio"], "the default publication on the box's mediums")
        XCTAssertEqual(resolved.sources["mediums"], "command line")
        XCTAssertEqual(resolved.sources["txPower"], "config file")

        let saved = SavedSettings(SettingsLayer(mediums: .ble, mode: .both, audioLevel: 70, bleInterval: 500,
                                  txPower: 0, debug: false, publications: ["direct:c0ffee@ble"]))
        resolved = SettingsResolver.resolve(board: board, config: config, commandLine: commandLine, saved: saved.layer)
        XCTAssertEqual(resolved.strategy, Strategy(mediums: .ble, mode: .both), "what a technician saved wins")
        XCTAssertEqual(resolved.audioLevel, 70)
        XCTAssertEqual(resolved.bleInterval, 500)
        XCTAssertEqual(resolved.txPower, 0)
        XCTAssertEqual(resolved.audioInterval, 3, "the saved settings say nothing of the interval")
        XCTAssertEqual(resolved.publications, ["direct:c0ffee@ble"])
        XCTAssertEqual(resolved.sources["audioLevel"], "saved settings")
    }

    func testCommandLinePublicationsReplaceTheSavedOnesAndDebugIsOnWhenAnyLayerSaysSo() {
        let saved = SavedSettings(SettingsLayer(mediums: .both, mode: .broadcast, audioLevel: 50, bleInterval: 100,
                                  txPower: -12, debug: false, publications: ["direct:c0ffee@ble"]))
        let commandLine = SettingsLayer(debug: true, publications: ["eid:4@both"])
        let resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(debug: false), commandLine: commandLine,
                                                saved: saved.layer)
        XCTAssertEqual(resolved.publications, ["eid:4@both"])
        XCTAssertEqual(resolved.sources["publications"], "command line")
        XCTAssertTrue(resolved.debug, "--debug holds although the saved settings have debug off")
    }

    func testTheHubComesFromTheLastLayerThatNamesOneAndHasNoDefault() throws {
        let fromFile = try HubSettings(url: "https://hub.example.org", key: "ncsec_file", certificateAuthority: "/etc/nearcast/hub-ca.pem")
        let fromFlags = try HubSettings(url: "http://127.0.0.1:8080", key: "ncsec_flag", certificateAuthority: nil)
        var resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertNil(resolved.values.hub, "no hub unless one is named")
        XCTAssertNil(resolved.sources["hub"])
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(hub: fromFile), commandLine: SettingsLayer(), saved: nil)
        XCTAssertEqual(resolved.values.hub, fromFile)
        XCTAssertEqual(resolved.sources["hub"], "config file")
        let saved = SavedSettings(SettingsLayer(mediums: .both, mode: .broadcast, audioLevel: 50, bleInterval: 100,
                                  txPower: -12, debug: false, publications: ["message:demo/slide:Slide 1@both"]))
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(hub: fromFile), commandLine: SettingsLayer(hub: fromFlags),
                                            saved: saved.layer)
        XCTAssertEqual(resolved.values.hub, fromFlags, "--hub over the config file's, and the saved settings (which hold no hub) leave it")
        XCTAssertEqual(resolved.sources["hub"], "command line")
    }
    /// A box given a hub and no publication is there to be found through the hub: it broadcasts
    /// its hub identity's EID, not the direct token (docs/presenter.md starts it so).
    func testABoxWithAHubAndNoPublicationBroadcastsItsHubIdentity() throws {
        let hub = try HubSettings(url: "https://hub.example", key: "ncsec_x", certificateAuthority: nil)
        var resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(hub: hub), saved: nil)
        XCTAssertEqual(resolved.publications, ["hub@both"])
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(hub: hub), commandLine: SettingsLayer(mediums: .audio), saved: nil)
        XCTAssertEqual(resolved.publications, ["hub@audio"], "on the box's mediums, the hub from the config file")
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(hub: hub),
                                            commandLine: SettingsLayer(publications: ["direct:c0ffee@both"]), saved: nil)
        XCTAssertEqual(resolved.publications, ["direct:c0ffee@both"], "a named publication is what the box sends")
        XCTAssertEqual(try PublicationSpec.parse("hub@ble", defaultExponent: 10).text, "hub@ble")
        XCTAssertThrowsError(try PublicationSpec.parse("hub:3", defaultExponent: 10)) { XCTAssertTrue("\($0)".contains("takes no value"), "\($0)") }
    }

    func testTheBoxsNameComesFromTheCommandLineOverTheConfigFile() {
        var resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(), commandLine: SettingsLayer(), saved: nil)
        XCTAssertNil(resolved.values.name, "no default name")
        resolved = SettingsResolver.resolve(board: board, config: SettingsLayer(name: "Hall"), commandLine: SettingsLayer(name: "Room 101"), saved: nil)
        XCTAssertEqual(resolved.values.name, "Room 101")
        XCTAssertNil(SettingsDefaults.nameProblem("Salle Émile-Zola"))
        XCTAssertNotNil(SettingsDefaults.nameProblem(""))
        XCTAssertNotNil(SettingsDefaults.nameProblem(String(repeating: "x", count: 101)))
        XCTAssertNotNil(SettingsDefaults.nameProblem("Room\u{7}"))
    }
}
