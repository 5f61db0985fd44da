import NearcastCore
import XCTest

final class RetryBackoffTests: XCTestCase {
    func testWaitsDoubleUpToTheLongestAndResetOnSuccess() {
        var retry = RetryBackoff(first: 1, longest: 30)
        XCTAssertTrue(retry.isDue(at: 0), "the first attempt is at once")
        var now = 0.0
        var waits: [Double] = []
        for _ in 0..<7 {
            let wait = retry.failed(at: now)
            waits.append(wait)
            XCTAssertFalse(retry.isDue(at: now + wait - 0.001))
            now += wait
            XCTAssertTrue(retry.isDue(at: now))
        }
        XCTAssertEqual(waits, [1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(retry.failures, 7)
        retry.succeeded()
        XCTAssertTrue(retry.isDue(at: now))
        XCTAssertEqual(retry.failed(at: now), 1)
    }

    func testUnderrunsShowForTheHoldTime() {
        var watch = XrunWatch(holdMilliseconds: 10_000)
        XCTAssertFalse(watch.update(count: 0, atMilliseconds: 0))
        XCTAssertTrue(watch.update(count: 1, atMilliseconds: 5_000))
        XCTAssertTrue(watch.update(count: 1, atMilliseconds: 14_999))
        XCTAssertFalse(watch.update(count: 1, atMilliseconds: 15_000))
        XCTAssertTrue(watch.update(count: 3, atMilliseconds: 20_000))
        XCTAssertFalse(watch.update(count: 3, atMilliseconds: 30_000))
    }
}
