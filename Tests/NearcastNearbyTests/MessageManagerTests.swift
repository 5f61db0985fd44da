import NearcastNearby
import NearcastCore
import NearcastDrivers
import XCTest

/// The Nearby-style API as a Swift program on the box would use it.
final class MessageManagerTests: XCTestCase {
    private let rate = 48_000
    private let key: [UInt8] = Array(0..<16)

    private func manager(consent: Bool = true, sets: Int = 1, log: @escaping (String) -> Void = { _ in }) -> MessageManager {
        var config = SchedulerConfiguration(ticksPerSecond: rate, audioBurstLength: 24_000)
        config.bleAdvertisingSets = sets
        return MessageManager(configuration: config, clock: BeaconClock(startingAt: 100_000), cipher: OpenSSLAES128(),
                              seed: 42, consentGranted: consent, lostAfterSeconds: 3, log: log)
    }

    /// Runs `seconds` of periods and returns the actions performed.
    @discardableResult
    private func run(_ manager: MessageManager, from start: inout Int64, seconds: Double, period: Int = 960) -> [ScheduleAction] {
        var actions: [ScheduleAction] = []
        let end = start + Int64(seconds * Double(rate))
        while start < end {
            manager.tick(at: start, count: period) { actions.append($0) }
            start += Int64(period)
        }
        return actions
    }

    func testAPublicationBroadcastsWhileItsObjectLives() throws {
        let manager = manager()
        var position: Int64 = 0
        var publication: Publication? = try manager.publish(.direct(try Token(kind: .direct, hex: "c0ffee")))
        XCTAssertEqual(publication?.currentToken?.hex, "c0ffee")
        let live = run(manager, from: &position, seconds: 3)
        XCTAssertEqual(live.filter { if case .audioBurst = $0 { return true } else { return false } }.count, 3)
        XCTAssertTrue(live.contains { if case .advertise = $0 { return true } else { return false } })
        publication = nil                      // the owner lets go: unpublished
        let after = run(manager, from: &position, seconds: 3)
        XCTAssertEqual(after.first, .stopAdvertising(set: 0, at: 3 * 48_000))
        XCTAssertFalse(after.contains { if case .audioBurst = $0 { return true } else { return false } })
        XCTAssertEqual(manager.schedule.publicationCount, 0)
    }

    func testEIDPublicationsCarryTheRealEIDOfEachEpoch() throws {
        let manager = manager()
        let publication = try manager.publish(.eid(identityKey: key, exponent: 3), strategy: Strategy(mediums: .audio))
        var position: Int64 = 0
        var current = try XCTUnwrap(publication.currentToken)
        var switches = 0
        for action in run(manager, from: &position, seconds: 100) {
            switch action {
            case .tokenChanged(_, let token, let at):
                let time = manager.schedule.beaconTime(at: at)
                let expected = try EphemeralIdentifier.compute(identityKey: key, exponent: 3, time: time, cipher: OpenSSLAES128())
                XCTAssertEqual(token, expected, "the EID of beacon time \(time)")
                current = token
                switches += 1
            case .audioBurst(_, let token, _):
                XCTAssertEqual(token, current)
            default:
                break
            }
        }
        XCTAssertGreaterThanOrEqual(switches, 11, "100 s of 8 s epochs")
    }

    func testPermissionGatesBroadcastingAndNotifiesOnChange() throws {
        let manager = manager(consent: false)
        var changes: [Bool] = []
        manager.permission.onChange = { changes.append($0) }
        let publication = try manager.publish(.direct(try Token(kind: .direct, hex: "01")))
        var position: Int64 = 0
        XCTAssertTrue(run(manager, from: &position, seconds: 2).isEmpty, "nothing on air without consent")
        manager.permission.grant()
        manager.permission.grant()               // no change, no call
        XCTAssertFalse(run(manager, from: &position, seconds: 2).isEmpty)
        manager.permission.deny()
        let denied = run(manager, from: &position, seconds: 2)
        XCTAssertEqual(denied.count, 1, "only the advertiser being stopped")
        XCTAssertEqual(changes, [true, false])
        XCTAssertTrue(publication.isPublished, "consent pauses publications, it does not remove them")
    }

    func testErrorHandlersRunOnEveryChangeOfAProblem() {
        let manager = manager()
        var calls: [String] = []
        manager.onMicrophonePermissionError = { calls.append("mic \($0)") }
        manager.onBluetoothPermissionError = { calls.append("bt-perm \($0)") }
        manager.onBluetoothPowerError = { calls.append("bt-power \($0)") }
        manager.report(.bluetoothPower, present: true)
        manager.report(.bluetoothPower, present: true)
        manager.report(.microphonePermission, present: true)
        manager.report(.bluetoothPower, present: false)
        manager.report(.bluetoothPermission, present: false)   // was never present
        XCTAssertEqual(calls, ["bt-power true", "mic true", "bt-power false"])
        XCTAssertEqual(manager.currentProblems, [.microphonePermission])
    }

    func testEveryProblemReachesOnProblemAndTheLEDStatesFollowTheWorst() {
        let manager = manager()
        var seen: [String] = []
        manager.onProblem = { seen.append("\($0.identifier) \($1)") }
        manager.report(.audioUnderruns, present: true)
        manager.report(.audioMissing, present: true)
        manager.report(.bluetoothNoAdapter, present: true)
        XCTAssertEqual(manager.currentProblems.audioHealth, .missing, "missing outranks underruns")
        XCTAssertEqual(manager.currentProblems.bluetoothHealth, .noAdapter)
        manager.report(.audioPermission, present: true)
        XCTAssertEqual(manager.currentProblems.audioHealth, .permissionDenied)
        manager.report(.audioMissing, present: false)
        XCTAssertEqual(manager.currentProblems.identifiers, ["audio-permission", "audio-underruns", "bluetooth-no-adapter"])
        XCTAssertEqual(seen, ["audio-underruns true", "audio-missing true", "bluetooth-no-adapter true",
                              "audio-permission true", "audio-missing false"])
    }

    /// A found handler that cancels subscriptions (its own and a later one) while the manager is
    /// delivering: the walk goes on with the ones left, and nothing is delivered to a cancelled one.
    func testAHandlerMayCancelSubscriptionsWhileTokensAreDelivered() throws {
        let manager = manager()
        var log: [String] = []
        var kept: [Subscription?] = [nil, nil, nil]
        kept[0] = try manager.subscribe(onFound: { _ in log.append("0 found"); kept[0]?.cancel(); kept[1]?.cancel() },
                                        onLost: { _ in log.append("0 lost") })
        kept[1] = try manager.subscribe(onFound: { _ in log.append("1 found") }, onLost: { _ in log.append("1 lost") })
        kept[2] = try manager.subscribe(onFound: { _ in log.append("2 found") }, onLost: { _ in log.append("2 lost") })
        manager.heard(try Token(kind: .direct, hex: "c0ffee"), on: .audio, at: 0)
        XCTAssertEqual(log, ["0 found", "2 found"])
        manager.heard(try Token(kind: .direct, hex: "beef"), on: .audio, at: 10)
        XCTAssertEqual(log, ["0 found", "2 found", "2 found"])
    }

    func testTooManyPublicationsAndEmptyStrategiesAreClearErrors() throws {
        let manager = manager()
        var kept: [Publication] = []
        for index in 0..<8 { kept.append(try manager.publish(.direct(Token(kind: .direct, packed: UInt64(index), count: 1)!))) }
        XCTAssertThrowsError(try manager.publish(.direct(try Token(kind: .direct, hex: "ff")))) { error in
            XCTAssertEqual("\(error)", "already 8 publications: unpublish one first")
        }
        kept[3].unpublish()
        XCTAssertNoThrow(try manager.publish(.direct(try Token(kind: .direct, hex: "ff"))))
        XCTAssertThrowsError(try manager.publish(.direct(try Token(kind: .direct, hex: "ff")), strategy: Strategy(mode: .scan)))
        XCTAssertThrowsError(try manager.publish(.eid(identityKey: [1, 2], exponent: 4))) { error in
            XCTAssertEqual("\(error)", "an identity key is 16 bytes, got 2")
        }
        XCTAssertThrowsError(try manager.subscribe(strategy: Strategy(mode: .broadcast), onFound: { _ in }, onLost: { _ in }))
    }

    /// Found and lost from real audio: the modem's encoder renders bursts, its streaming decoder
    /// hears them, the subscription reports the token found, then lost once the bursts stop.
    func testSubscriptionFindsAndLosesTokensHeardByTheAudioDecoder() throws {
        let manager = manager()
        var found: [FoundMessage] = [], lost: [FoundMessage] = []
        let subscription = try manager.subscribe(strategy: Strategy(mediums: .audio, mode: .scan),
                                                 onFound: { found.append($0) }, onLost: { lost.append($0) })
        XCTAssertTrue(manager.isScanning(on: .audio))
        XCTAssertFalse(manager.isScanning(on: .ble))
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        let token = try Token(kind: .direct, hex: "0badcafe")
        var period = [Float](repeating: 0, count: 960)
        var position: Int64 = 0
        for index in 0..<(12 * rate / 960) {          // 12 s: bursts for the first 4 s, then silence
            if index % 50 == 0 && index < 200 { encoder.start(token) }
            period.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = 0 }
                _ = encoder.render(into: buffer)
            }
            period.withUnsafeBufferPointer { samples in
                decoder.push(samples) { burst in manager.heard(burst.token, on: .audio, at: position) }
            }
            manager.tick(at: position, count: 960) { _ in }
            position += 960
        }
        XCTAssertEqual(found, [FoundMessage(token: token, medium: .audio)], "found once, not once per burst")
        XCTAssertEqual(lost.map(\.token), [token], "lost after 3 s unheard")
        XCTAssertTrue(subscription.present.isEmpty)
    }

    func testSubscriptionFindsEddystoneFramesInAdvertisingReports() throws {
        let manager = manager()
        var found: [FoundMessage] = []
        let bleOnly = try manager.subscribe(strategy: Strategy(mediums: .ble, mode: .scan),
                                            onFound: { found.append($0) }, onLost: { _ in })
        var audioFound = 0
        let audioOnly = try manager.subscribe(strategy: Strategy(mediums: .audio, mode: .scan),
                                              onFound: { _ in audioFound += 1 }, onLost: { _ in })
        let eid = try Token(kind: .eid, hex: "ca8db2444f89ec78")
        let data = EddystoneFrame.advertisingData(for: eid, txPower: -12).bytes
        let event: [UInt8] = [0x3E, UInt8(12 + data.count), 0x02, 0x01, 0x03, 0x01, 1, 2, 3, 4, 5, 6, UInt8(data.count)] + data + [0xC4]
        try manager.heard(report: event, at: 0)
        try manager.heard(report: event, at: 1_000)
        XCTAssertEqual(found, [FoundMessage(token: eid, medium: .ble)])
        XCTAssertEqual(audioFound, 0, "an audio-only subscription ignores BLE")
        XCTAssertThrowsError(try manager.heard(report: Array(event.dropLast()), at: 2_000))
        _ = (bleOnly, audioOnly)
    }

    func testDebugLoggingShowsSchedulingDecisions() throws {
        var lines: [String] = []
        let manager = manager(log: { lines.append($0) })
        let publication = try manager.publish(.direct(try Token(kind: .direct, hex: "01")))
        var position: Int64 = 0
        run(manager, from: &position, seconds: 1)
        XCTAssertTrue(lines.isEmpty, "quiet unless switched on")
        manager.debugLogging = true
        run(manager, from: &position, seconds: 1)
        XCTAssertTrue(lines.contains { $0.hasPrefix("debug: tick 48000: audio burst direct 01") }, "\(lines)")
        _ = publication
    }

    /// Content publications broadcast the hub identity's EID, one slot for all of them, and list
    /// what a hub client keeps attached.
    func testContentSharesTheHubIdentitysEIDAndIsListedForTheHub() throws {
        let manager = manager(sets: 2)
        XCTAssertThrowsError(try manager.publish(.content(namespacedType: "demo/slide", bytes: [1]))) {
            XCTAssertEqual($0 as? NearbyError, .noHubIdentity)
        }
        manager.hubIdentity = HubIdentity(identityKey: key, exponent: 10)
        let expected = try EphemeralIdentifier.compute(identityKey: key, exponent: 10, time: 100_000, cipher: OpenSSLAES128())
        let revision = manager.contentRevision
        var slide: Publication? = try manager.publish(.content(namespacedType: "demo/slide", bytes: Array("slide 1".utf8)),
                                                      strategy: Strategy(mediums: .audio, mode: .broadcast))
        let event = try manager.publish(.content(namespacedType: "demo/event", bytes: Array("42".utf8)),
                                        strategy: Strategy(mediums: .ble, mode: .broadcast))
        XCTAssertEqual(slide?.slot, event.slot, "one EID for all content")
        XCTAssertEqual(event.currentToken, expected)
        XCTAssertEqual(manager.schedule.status(of: event.slot)?.strategy.mediums, .both, "the union of the mediums")
        XCTAssertEqual(manager.contents.map(\.namespacedType), ["demo/slide", "demo/event"])
        XCTAssertEqual(manager.contentRevision, revision + 2)
        // A box switched to scan only stops the shared EID like any other publication.
        manager.setStrategy(Strategy(mediums: .audio, mode: .scan), for: slide!)
        manager.setStrategy(Strategy(mediums: .ble, mode: .scan), for: event)
        XCTAssertEqual(manager.schedule.status(of: event.slot)?.strategy.mode, .scan)
        manager.setStrategy(Strategy(mediums: .audio, mode: .broadcast), for: slide!)
        manager.setStrategy(Strategy(mediums: .ble, mode: .broadcast), for: event)
        slide = nil
        XCTAssertEqual(manager.contents.map(\.namespacedType), ["demo/event"])
        XCTAssertEqual(manager.schedule.status(of: event.slot)?.strategy.mediums, .ble)
        XCTAssertTrue(event.isPublished)
        event.unpublish()
        XCTAssertTrue(manager.contents.isEmpty)
        XCTAssertNil(manager.schedule.status(of: event.slot), "the shared EID goes with the last content")
        XCTAssertThrowsError(try manager.publish(.content(namespacedType: "slide", bytes: [])))
        XCTAssertThrowsError(try manager.publish(.content(namespacedType: "demo/big", bytes: [UInt8](repeating: 0, count: 100 * 1024 + 1))))
    }
    /// The hub beacon: the hub identity's EID with nothing attached (a box given a hub and no
    /// publication). It shares the content's EID slot and is never listed for the hub to attach.
    func testTheHubBeaconSendsTheHubIdentitysEIDAndAttachesNothing() throws {
        let manager = manager(sets: 2)
        XCTAssertThrowsError(try manager.publish(.hubBeacon)) { XCTAssertEqual($0 as? NearbyError, .noHubIdentity) }
        manager.hubIdentity = HubIdentity(identityKey: key, exponent: 7)
        let expected = try EphemeralIdentifier.compute(identityKey: key, exponent: 7, time: 100_000, cipher: OpenSSLAES128())
        let beacon = try manager.publish(.hubBeacon)
        XCTAssertEqual(beacon.currentToken, expected)
        XCTAssertTrue(manager.contents.isEmpty, "nothing for the hub to attach")
        let slide = try manager.publish(.content(namespacedType: "demo/slide", bytes: Array("3".utf8)))
        XCTAssertEqual(slide.slot, beacon.slot, "one EID per box, message or not")
        XCTAssertEqual(manager.contents.map(\.namespacedType), ["demo/slide"])
        slide.unpublish()
        XCTAssertTrue(beacon.isPublished)
        XCTAssertEqual(manager.schedule.status(of: beacon.slot)?.token, expected, "the EID stays on air with the beacon")
        beacon.unpublish()
        XCTAssertNil(manager.schedule.status(of: beacon.slot))
    }
}
