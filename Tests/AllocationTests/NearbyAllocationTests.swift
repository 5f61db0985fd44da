import NearcastCore
import NearcastDrivers
import NearcastNearby
import XCTest

/// The Nearby-style API's steady state allocates nothing: the manager's tick with publications
/// and subscriptions (expiry walks them every period), and hearing tokens that are present.
final class NearbyAllocationTests: XCTestCase {
    func testManagerTickAndHearingAllocateNothingOverAnHour() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        var config = SchedulerConfiguration(ticksPerSecond: 48_000, audioBurstLength: 34_560)
        config.bleAdvertisingSets = 2
        // Beacon time 100 000: an EID rotating every 2^15 s next switches at 131 072, after the hour.
        let manager = MessageManager(configuration: config, clock: BeaconClock(startingAt: 100_000), cipher: OpenSSLAES128(),
                                     seed: 7, lostAfterSeconds: 5)
        let publications = [
            try manager.publish(.direct(Token(kind: .direct, packed: 0xC0FFEE, count: 3)!)),
            try manager.publish(.direct(Token(kind: .direct, packed: 0x0102, count: 2)!), strategy: Strategy(mediums: .ble, mode: .broadcast)),
            try manager.publish(.eid(identityKey: Array(0..<16), exponent: 15)),
        ]
        var found = 0, lost = 0, actions = 0
        let subscriptions = [
            try manager.subscribe(strategy: Strategy(mediums: .audio, mode: .scan), onFound: { _ in found += 1 }, onLost: { _ in lost += 1 }),
            try manager.subscribe(strategy: Strategy(mediums: .ble, mode: .scan), onFound: { _ in found += 1 }, onLost: { _ in lost += 1 }),
            try manager.subscribe(onFound: { _ in found += 1 }, onLost: { _ in lost += 1 }),
        ]
        let heardToken = Token(kind: .direct, packed: 0xC0FFEE, count: 3)!
        var position: Int64 = 0
        func run(periods: Int) {
            for period in 0..<periods {
                manager.tick(at: position, count: 960) { _ in actions += 1 }
                // Heard every second on audio, every other on BLE (present the whole time).
                if period % 50 == 0 { manager.heard(heardToken, on: .audio, at: position) }
                if period % 100 == 0 { manager.heard(heardToken, on: .ble, at: position) }
                position += 960
            }
        }
        run(periods: 100)                      // warm-up: the first sightings are reported found
        let periods = 3_600 * 50               // one hour of 20 ms periods
        let allocations = AllocationCounter.allocations { run(periods: periods) }
        XCTAssertEqual(allocations, 0, "heap allocations in MessageManager.tick and heard")
        XCTAssertEqual(found, 3, "each subscription found the token once")
        XCTAssertEqual(lost, 0)
        XCTAssertGreaterThan(actions, 3_600, "bursts and advertising changes were performed")
        XCTAssertTrue(publications.allSatisfy { $0.isPublished })
        XCTAssertEqual(subscriptions.map { $0.present.count }, [1, 1, 1])
    }
}
