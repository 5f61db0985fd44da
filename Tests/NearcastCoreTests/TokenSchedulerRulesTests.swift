import XCTest
@testable import NearcastCore

/// The scheduler's rules one at a time: capacity, handles, consent, late EIDs, rotation.
final class TokenSchedulerRulesTests: XCTestCase {
    private func scheduler(sets: Int = 1, allowed: Bool = true) -> TokenScheduler {
        var config = SchedulerConfiguration(ticksPerSecond: 1_000, audioBurstLength: 500)
        config.bleAdvertisingSets = sets
        return TokenScheduler(configuration: config, clock: BeaconClock(startingAt: 1_000), seed: 7,
                              broadcastingAllowed: allowed)
    }

    private func actions(_ scheduler: TokenScheduler) -> [ScheduleAction] {
        (0..<scheduler.actions.count).map { scheduler.actions[$0] }
    }

    private func token(_ byte: UInt8) -> Token { Token(kind: .direct, packed: UInt64(byte), count: 1)! }

    func testEightPublicationsFitAndANinthIsRefused() {
        var s = scheduler()
        for index in 0..<8 { XCTAssertNotNil(s.add(direct: token(UInt8(index)), strategy: .default, at: 0)) }
        XCTAssertNil(s.add(direct: token(9), strategy: .default, at: 0))
        XCTAssertEqual(s.publicationCount, 8)
    }

    func testARemovedHandleNeverReachesTheSlotsNextPublication() throws {
        var s = scheduler()
        let first = try XCTUnwrap(s.add(direct: token(1), strategy: .default, at: 0))
        XCTAssertTrue(s.remove(first))
        XCTAssertFalse(s.remove(first), "removing twice")
        let second = try XCTUnwrap(s.add(direct: token(2), strategy: .default, at: 0))
        XCTAssertEqual(second.index, first.index)
        XCTAssertNil(s.status(of: first))
        XCTAssertFalse(s.setStrategy(Strategy(mediums: .ble), for: first))
        XCTAssertEqual(s.status(of: second)?.token, token(2))
    }

    func testNothingGoesOnAirWithoutConsentAndAdvertisingStopsWhenItIsWithdrawn() throws {
        var s = scheduler(allowed: false)
        _ = try XCTUnwrap(s.add(direct: token(1), strategy: .default, at: 0))
        for tick in 0..<20 {
            s.tick(at: Int64(tick) * 100, count: 100)
            XCTAssertEqual(s.actions.count, 0, "something was scheduled without consent")
        }
        s.setBroadcastingAllowed(true)
        s.tick(at: 2_000, count: 100)
        let granted = actions(s)
        XCTAssertTrue(granted.contains { if case .advertise = $0 { return true } else { return false } })
        XCTAssertTrue(granted.contains { if case .audioBurst = $0 { return true } else { return false } })
        s.setBroadcastingAllowed(false)
        s.tick(at: 2_100, count: 100)
        XCTAssertEqual(actions(s), [.stopAdvertising(set: 0, at: 2_100)])
        for tick in 22..<60 {
            s.tick(at: Int64(tick) * 100, count: 100)
            XCTAssertEqual(s.actions.count, 0)
        }
    }

    func testAnEIDThatIsNotHandedInInTimeComesOffTheAir() throws {
        var s = scheduler()
        let eid = Token(kind: .eid, packed: 0x1111, count: 8)!
        // K = 2: epochs of 4 s; the clock starts at 1000, an epoch start.
        let slot = try XCTUnwrap(s.add(eid: eid, exponent: 2, epochStart: 1_000, strategy: .default, at: 0))
        s.tick(at: 0, count: 100)
        XCTAssertTrue(actions(s).contains(.tokenNeeded(slot, epochStart: 1_004)))
        XCTAssertFalse(s.provide(eid, for: slot, epochStart: 1_008), "a token for the wrong epoch is refused")
        var position: Int64 = 100
        while position < 6_000 {
            s.tick(at: position, count: 100)
            position += 100
        }
        XCTAssertNil(s.status(of: slot)?.token, "the old EID stayed on air past its switch")
        for action in actions(s) {
            if case .audioBurst = action { XCTFail("a burst without a current EID") }
        }
        let next = Token(kind: .eid, packed: 0x2222, count: 8)!
        XCTAssertTrue(s.provide(next, for: slot, epochStart: 1_004))
        s.tick(at: position, count: 100)
        XCTAssertTrue(actions(s).contains(.tokenChanged(slot, token: next, at: position)))
        XCTAssertEqual(s.status(of: slot)?.token, next)
    }

    func testLegacyAdvertisingRotatesPublicationsOnceASecondEach() throws {
        var s = scheduler(sets: 1)
        let a = try XCTUnwrap(s.add(direct: token(1), strategy: Strategy(mediums: .ble), at: 0))
        let b = try XCTUnwrap(s.add(direct: token(2), strategy: Strategy(mediums: .ble), at: 0))
        var shown: [(PublicationSlot, Int64)] = []
        for tick in 0..<100 {
            s.tick(at: Int64(tick) * 50, count: 50)
            for case .advertise(let set, let slot, _, _, let at) in actions(s) {
                XCTAssertEqual(set, 0)
                shown.append((slot, at))
            }
        }
        XCTAssertEqual(shown.count, 5, "one change per second over 5 s")
        for (index, entry) in shown.enumerated() {
            XCTAssertEqual(entry.0, index % 2 == 0 ? a : b)
            XCTAssertEqual(entry.1, Int64(index) * 1_000)
        }
    }

    func testExtendedAdvertisingGivesEachPublicationItsOwnSet() throws {
        var s = scheduler(sets: 8)
        var slots: [PublicationSlot] = []
        for index in 0..<3 { slots.append(try XCTUnwrap(s.add(direct: token(UInt8(index)), strategy: .default, at: 0))) }
        s.tick(at: 0, count: 100)
        let sets = actions(s).compactMap { action -> Int? in
            if case .advertise(let set, _, _, _, _) = action { return set } else { return nil }
        }
        XCTAssertEqual(sets, [0, 1, 2])
        for tick in 1..<100 {
            s.tick(at: Int64(tick) * 100, count: 100)
            XCTAssertFalse(actions(s).contains { if case .advertise = $0 { return true } else { return false } },
                           "nothing rotates when every publication has its own set")
        }
        s.remove(slots[1])
        s.tick(at: 10_000, count: 100)
        XCTAssertEqual(actions(s).filter { if case .stopAdvertising = $0 { return true } else { return false } },
                       [.stopAdvertising(set: 1, at: 10_000)])
    }

    func testAudioIntervalIsSharedAndStretchesUnderTheDutyCap() throws {
        var config = SchedulerConfiguration(ticksPerSecond: 1_000, audioBurstLength: 200)
        config.audioDutyCycle = 0.5
        var s = TokenScheduler(configuration: config, clock: BeaconClock(startingAt: 0), seed: 1)
        _ = s.add(direct: token(1), strategy: .default, at: 0)
        XCTAssertEqual(s.audioBurstSpacing, 1_000)
        _ = s.add(direct: token(2), strategy: .default, at: 0)
        XCTAssertEqual(s.audioBurstSpacing, 500, "two publications share the 1 s interval")
        for index in 3...8 { _ = s.add(direct: token(UInt8(index)), strategy: .default, at: 0) }
        XCTAssertEqual(s.audioBurstSpacing, 400, "eight would need 125 ms apart; the 50 % cap keeps 400 ms")
        XCTAssertEqual(s.effectiveAudioInterval, 3_200)
    }

    func testSwitchMomentsAreSpreadOverTheFirstPartOfTheEpoch() throws {
        var offsets: [Int64] = []
        for seed in 0..<200 {
            var config = SchedulerConfiguration(ticksPerSecond: 1_000, audioBurstLength: 500)
            config.eidSwitchFraction = 0.25
            var s = TokenScheduler(configuration: config, clock: BeaconClock(startingAt: 0), seed: UInt64(seed))
            let slot = try XCTUnwrap(s.add(eid: Token(kind: .eid, packed: 1, count: 8)!, exponent: 4, epochStart: 0,
                                           strategy: .default, at: 0))
            offsets.append(try XCTUnwrap(s.status(of: slot)?.nextSwitchAt) - 16_000)
        }
        XCTAssertGreaterThanOrEqual(offsets.min()!, 0)
        XCTAssertLessThan(offsets.max()!, 4_000, "within the first quarter of a 16 s epoch")
        XCTAssertGreaterThan(Set(offsets).count, 150, "the moment is random")
        XCTAssertGreaterThan(offsets.max()! - offsets.min()!, 3_000, "spread across the window")
    }

    func testRandomAddressesAreNonResolvablePrivate() {
        var generator = SplitMix64(seed: 3)
        var seen = Set<BLEAddress>()
        for _ in 0..<1_000 {
            let address = BLEAddress.nonResolvablePrivate(using: &generator)
            XCTAssertEqual(address.value >> 46, 0)
            XCTAssertNotEqual(address.value, 0)
            seen.insert(address)
        }
        XCTAssertEqual(seen.count, 1_000)
        XCTAssertEqual(BLEAddress(value: 0x0011_2233_4455)!.description, "00:11:22:33:44:55")
    }
}
