import XCTest
@testable import NearcastCore

final class SightingTrackerTests: XCTestCase {
    private func token(_ value: UInt64) -> Token { Token(kind: .eid, packed: value, count: 8)! }

    func testFoundOnceLostAfterTheTimeoutAndFoundAgain() {
        var tracker = SightingTracker(lostAfter: 10)
        var events: [SightingTracker.Event] = []
        tracker.observe(token(1), on: .audio, at: 0) { events.append($0) }
        tracker.observe(token(1), on: .ble, at: 5) { events.append($0) }
        XCTAssertEqual(events, [.found(token(1), medium: .audio)], "heard again is not found again")
        XCTAssertEqual(tracker[0].mediums, .both)
        tracker.expire(at: 15) { events.append($0) }
        XCTAssertEqual(events.count, 1, "heard 10 ticks ago: not lost yet")
        tracker.expire(at: 16) { events.append($0) }
        XCTAssertEqual(events.last, .lost(token(1)))
        XCTAssertEqual(tracker.count, 0)
        tracker.observe(token(1), on: .ble, at: 20) { events.append($0) }
        XCTAssertEqual(events.last, .found(token(1), medium: .ble))
    }

    func testAFullTrackerLosesTheTokenHeardLongestAgo() {
        var tracker = SightingTracker(lostAfter: 1_000)
        var events: [SightingTracker.Event] = []
        for value in 0..<UInt64(SightingTracker.capacity) {
            tracker.observe(token(value), on: .ble, at: Int64(value)) { events.append($0) }
        }
        tracker.observe(token(0), on: .ble, at: 100) { events.append($0) }   // 0 is fresh again; 1 is oldest
        events.removeAll()
        tracker.observe(token(999), on: .audio, at: 101) { events.append($0) }
        XCTAssertEqual(events, [.lost(token(1)), .found(token(999), medium: .audio)])
        XCTAssertEqual(tracker.count, SightingTracker.capacity)
        events.removeAll()
        tracker.removeAll { events.append($0) }
        XCTAssertEqual(events.count, SightingTracker.capacity)
        XCTAssertEqual(tracker.count, 0)
    }
}
