import XCTest
@testable import NearcastCore

/// A stand-in for AES in the scheduler tests: an "EID" that says which publication and epoch it
/// belongs to, so every token on air can be checked against the epoch it should carry.
private func fakeEID(publication: Int, epochStart: UInt32) -> Token {
    Token(kind: .eid, packed: UInt64(0xE1D) << 48 | UInt64(publication) << 40 | UInt64(epochStart), count: 8)!
}

private func epochOf(_ token: Token) -> UInt32 { UInt32(truncatingIfNeeded: token.packed) }

/// One run of the scheduler as the daemon drives it: a tick per audio period, EIDs handed in
/// right after the tick that asks for them.
private struct VirtualRun {
    var scheduler: TokenScheduler
    var publications: [PublicationSlot] = []

    /// Ticks one period and answers token requests; returns the tick's actions.
    mutating func tick(at start: Int64, count: Int) -> [ScheduleAction] {
        scheduler.tick(at: start, count: count)
        var actions: [ScheduleAction] = []
        for index in 0..<scheduler.actions.count {
            let action = scheduler.actions[index]
            actions.append(action)
            if case .tokenNeeded(let slot, let epoch) = action {
                XCTAssertTrue(scheduler.provide(fakeEID(publication: slot.index, epochStart: epoch), for: slot, epochStart: epoch))
            }
        }
        return actions
    }
}

final class TokenSchedulerTests: XCTestCase {
    private let rate = 1_000          // ticks per second: milliseconds (the scheduler is rate-agnostic)
    private let burst: Int64 = 500    // a 0.5 s burst

    private func configuration(sets: Int) -> SchedulerConfiguration {
        var config = SchedulerConfiguration(ticksPerSecond: rate, audioBurstLength: burst)
        config.bleAdvertisingSets = sets
        return config
    }

    /// Seven simulated days with power cuts and clean restarts: every EID switch on time and in
    /// epoch order, audio and BLE switching in the same period with a new address, bursts never
    /// overlapping, the duty cycle kept, every audio publication served, and the beacon clock
    /// never going backwards across restarts.
    func testSevenDaysWithRestarts() throws {
        for sets in [1, 8] {
            try runSevenDays(sets: sets, seed: UInt64(sets))
        }
    }

    private func runSevenDays(sets: Int, seed: UInt64) throws {
        let config = configuration(sets: sets)
        let period = 250                                   // ticks per scheduler call (250 ms)
        let week: Int64 = 7 * 86_400 * Int64(rate)
        // Publications: (exponent or nil for direct, strategy).
        let plan: [(Int?, Strategy)] = [
            (10, .default),                                      // EID every 1024 s, audio + BLE
            (4, Strategy(mediums: .ble, mode: .broadcast)),      // EID every 16 s, BLE only
            (nil, Strategy(mediums: .audio, mode: .broadcast)),  // a direct token, audio only
            (6, .default),                                       // EID every 64 s, both
        ]
        var random = SplitMix64(seed: seed &+ 1000)
        var disk: UInt32 = 65_000                                // saved beacon time on a new box
        var elapsed: Int64 = 0
        var lastBeaconTime: UInt32 = 0
        var lastEpoch = [UInt32](repeating: 0, count: plan.count)
        var lastAudioStart: Int64?                                // session-local tick of the last burst
        var switches = 0, bursts = 0, restarts = 0, powerCuts = 0
        var airtime: [Int64] = []                                 // burst starts, for the duty window

        while elapsed < week {
            // One session: up to 20 hours, ended by a power cut or a clean stop.
            var reservation = BeaconClockReservation(saved: disk)
            XCTAssertGreaterThanOrEqual(reservation.clock.start, lastBeaconTime, "beacon clock went backwards after a restart")
            if let first = reservation.valueToSave(at: reservation.clock.start) {
                disk = first; reservation.saved(first)
            }
            var run = VirtualRun(scheduler: TokenScheduler(configuration: config, clock: reservation.clock,
                                                          seed: random.next()))
            for (index, entry) in plan.enumerated() {
                let now = run.scheduler.beaconTime(at: 0)
                let slot: PublicationSlot?
                if let k = entry.0 {
                    let epoch = EphemeralIdentifier.epochStart(time: now, exponent: k)
                    XCTAssertGreaterThanOrEqual(epoch, lastEpoch[index], "an EID epoch went backwards after a restart")
                    slot = run.scheduler.add(eid: fakeEID(publication: index, epochStart: epoch), exponent: k,
                                             epochStart: epoch, strategy: entry.1, at: 0)
                    lastEpoch[index] = epoch
                } else {
                    slot = run.scheduler.add(direct: try Token(kind: .direct, hex: "d1"), strategy: entry.1, at: 0)
                }
                run.publications.append(try XCTUnwrap(slot))
            }
            let sessionLength = min(week - elapsed, Int64(1 + random.next() % 20) * 3_600 * Int64(rate)
                                    + Int64(random.next() % 3_600_000))
            var position: Int64 = 0
            var currentToken = run.publications.map { run.scheduler.status(of: $0)!.token! }
            var currentAddress = run.publications.map { run.scheduler.status(of: $0)!.address }
            var onAir = [Int: Int]()                              // set -> publication on it
            var bleSeen = [Bool](repeating: false, count: plan.count)
            var lastBurstOf = [Int64](repeating: .min, count: plan.count)
            while position < sessionLength {
                let actions = run.tick(at: position, count: period)
                let end = position + Int64(period)
                var changedThisTick = Set<Int>()
                for action in actions {
                    switch action {
                    case .tokenChanged(let slot, let token, let at):
                        let k = try XCTUnwrap(plan[slot.index].0)
                        let epoch = epochOf(token)
                        XCTAssertEqual(epoch, lastEpoch[slot.index] &+ (1 << UInt32(k)), "an EID epoch was skipped")
                        let epochTick = run.scheduler.tick(ofBeaconTime: epoch)
                        let window = Int64(Double(1 << k) * config.eidSwitchFraction * Double(rate))
                        XCTAssertGreaterThanOrEqual(at, epochTick, "EID switched before its epoch")
                        XCTAssertLessThan(at, epochTick + max(window, 1) + Int64(period), "EID switched late")
                        XCTAssertTrue(at >= position && at < end)
                        lastEpoch[slot.index] = epoch
                        currentToken[slot.index] = token
                        // The random address rotates at the same moment as the EID.
                        let address = try XCTUnwrap(run.scheduler.status(of: slot)).address
                        XCTAssertNotEqual(address, currentAddress[slot.index], "the EID switched but the address did not")
                        currentAddress[slot.index] = address
                        changedThisTick.insert(slot.index)
                        switches += 1
                    case .audioBurst(let slot, let token, let at):
                        XCTAssertTrue(plan[slot.index].1.broadcasts(on: .audio))
                        XCTAssertEqual(token, currentToken[slot.index], "audio carried a token other than the current one")
                        if let previous = lastAudioStart {
                            XCTAssertGreaterThanOrEqual(at, previous + burst + config.audioGuard, "bursts overlap or skip the guard")
                            XCTAssertGreaterThanOrEqual(at - previous, config.minimumBurstSpacing, "duty cycle spacing broken")
                        }
                        if lastBurstOf[slot.index] != .min {
                            XCTAssertLessThanOrEqual(at - lastBurstOf[slot.index],
                                                     run.scheduler.effectiveAudioInterval + Int64(period),
                                                     "a publication waited too long for its burst")
                        }
                        lastBurstOf[slot.index] = at
                        lastAudioStart = at
                        airtime.append(elapsed + at)
                        bursts += 1
                    case .advertise(let set, let slot, let token, let address, _):
                        XCTAssertTrue(plan[slot.index].1.broadcasts(on: .ble))
                        XCTAssertEqual(set, slot.index % sets)
                        XCTAssertEqual(token, currentToken[slot.index], "BLE carried a token other than the current one")
                        XCTAssertTrue(address.isNonResolvablePrivate)
                        XCTAssertEqual(address, currentAddress[slot.index], "the BLE address changed without an EID switch")
                        onAir[set] = slot.index
                        bleSeen[slot.index] = true
                    case .stopAdvertising:
                        XCTFail("nothing should stop advertising while consent stays granted")
                    case .tokenNeeded:
                        break
                    }
                }
                // A switch on a publication that is on air shows on BLE in the same tick, with a new address.
                for index in changedThisTick where plan[index].1.broadcasts(on: .ble) && onAir[index % sets] == index {
                    XCTAssertTrue(actions.contains { if case .advertise(_, let s, let t, _, _) = $0 {
                        return s.index == index && t == currentToken[index] } else { return false } },
                        "EID switched on audio but not on BLE in the same period")
                }
                let time = run.scheduler.beaconTime(at: end)
                XCTAssertGreaterThanOrEqual(time, lastBeaconTime)
                lastBeaconTime = time
                if let value = reservation.valueToSave(at: time) { disk = value; reservation.saved(value) }
                position = end
            }
            for index in plan.indices where plan[index].1.broadcasts(on: .ble) {
                XCTAssertTrue(bleSeen[index] || sessionLength < 10 * Int64(rate), "publication \(index) never advertised")
            }
            elapsed += position
            lastAudioStart = nil
            // Half the sessions end with a power cut (nothing more saved), half cleanly.
            if random.next() % 2 == 0 {
                powerCuts += 1
            } else {
                disk = lastBeaconTime
            }
            restarts += 1
        }
        // Duty cycle over every 60 s window that starts at a burst.
        let window = 60 * Int64(rate)
        var tail = 0
        for head in airtime.indices {
            while airtime[head] - airtime[tail] >= window { tail += 1 }
            let onAir = Int64(head - tail + 1) * burst
            XCTAssertLessThanOrEqual(Double(onAir), config.audioDutyCycle * Double(window) + Double(burst),
                                     "duty cycle above the cap in a 60 s window")
        }
        XCTAssertGreaterThan(restarts, 5)
        XCTAssertGreaterThan(powerCuts, 1)
        XCTAssertGreaterThan(switches, 7 * 86_400 / 16 * 9 / 10, "about one switch per 16 s epoch for a week")
        XCTAssertGreaterThan(bursts, 7 * 86_400 * 9 / 10, "a burst about every second for a week")
    }
}
