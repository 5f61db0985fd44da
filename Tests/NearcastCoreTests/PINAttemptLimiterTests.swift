import XCTest
import NearcastCore

final class PINAttemptLimiterTests: XCTestCase {
    func testFiveWrongPINsAreFreeThenTheDelayDoublesUpToTheCap() {
        var limiter = PINAttemptLimiter()
        for attempt in 1...4 {
            limiter.recordFailure(at: 1_000)
            XCTAssertEqual(limiter.waitRemaining(at: 1_000), 0, "wrong PIN \(attempt) costs no wait")
        }
        XCTAssertEqual(limiter.attemptsBeforeDelay, 1)
        limiter.recordFailure(at: 1_000)
        XCTAssertEqual(limiter.waitRemaining(at: 1_000), 2_000, "the fifth wrong PIN starts a 2 s wait")
        XCTAssertEqual(limiter.waitRemaining(at: 2_500), 500)
        XCTAssertEqual(limiter.waitRemaining(at: 3_000), 0)
        limiter.recordFailure(at: 3_000)
        XCTAssertEqual(limiter.waitRemaining(at: 3_000), 4_000, "then 4 s")
        limiter.recordFailure(at: 7_000)
        XCTAssertEqual(limiter.waitRemaining(at: 7_000), 8_000, "then 8 s")
        XCTAssertEqual((5...40).map(PINAttemptLimiter.delay(afterFailures:)).max(), PINAttemptLimiter.longestDelay)
        XCTAssertEqual(PINAttemptLimiter.delay(afterFailures: 1_000), PINAttemptLimiter.longestDelay, "no overflow")
        XCTAssertEqual(PINAttemptLimiter.delay(afterFailures: 14), PINAttemptLimiter.longestDelay)
        XCTAssertLessThan(PINAttemptLimiter.delay(afterFailures: 13), PINAttemptLimiter.longestDelay)
    }

    func testTheRightPINResetsTheCountAndARestoredCountWaitsFromTheStart() {
        var limiter = PINAttemptLimiter()
        for _ in 1...6 { limiter.recordFailure(at: 0) }
        limiter.recordSuccess()
        XCTAssertEqual(limiter.failures, 0)
        XCTAssertEqual(limiter.waitRemaining(at: 0), 0)
        XCTAssertEqual(limiter.attemptsBeforeDelay, 5)

        let restored = PINAttemptLimiter(failures: 7, now: 50_000)
        XCTAssertEqual(restored.waitRemaining(at: 50_000), 8_000, "a power cycle does not clear the wait")
        XCTAssertEqual(PINAttemptLimiter(failures: 3, now: 50_000).waitRemaining(at: 50_000), 0)
    }
}
