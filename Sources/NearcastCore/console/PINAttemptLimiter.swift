/// Slows down PIN guessing on the console: five wrong PINs are free (a technician mistyping),
/// then each further attempt must wait a delay that doubles with every wrong PIN, from
/// ``firstDelay`` up to ``longestDelay``. Attempts made while waiting are refused unchecked and do
/// not count, so hammering the console does not lock a technician out for longer.
///
/// Pure: time is passed in (milliseconds on any monotonic clock), so the daemon's loop asks
/// "may I check now?" instead of sleeping, and the console never blocks broadcasting.
///
/// A 4-digit PIN has 10 000 values; with this schedule trying them all takes some 100 days
/// (the delay reaches ``longestDelay`` after 14 wrong PINs).
public struct PINAttemptLimiter: Sendable, Equatable {
    /// Wrong PINs allowed before the first delay.
    public static let freeAttempts = 5
    /// The wait after the fifth wrong PIN, in milliseconds.
    public static let firstDelay: Int64 = 2_000
    /// The longest wait, in milliseconds (15 minutes).
    public static let longestDelay: Int64 = 900_000

    /// Wrong PINs since the last right one.
    public private(set) var failures: Int
    /// When the next attempt may be checked (milliseconds); 0 when there is no wait.
    public private(set) var nextAttemptAt: Int64 = 0

    /// A limiter that has already seen `failures` wrong PINs (restored from the state directory,
    /// so a power cycle does not reset the count); the wait for them starts at `now`.
    public init(failures: Int = 0, now: Int64 = 0) {
        self.failures = max(0, failures)
        if self.failures >= Self.freeAttempts { nextAttemptAt = now + Self.delay(afterFailures: self.failures) }
    }

    /// Milliseconds to wait before an attempt at `now` is checked; 0 when it may be checked now.
    public func waitRemaining(at now: Int64) -> Int64 { max(0, nextAttemptAt - now) }

    /// Records a wrong PIN entered at `now`.
    public mutating func recordFailure(at now: Int64) {
        failures += 1
        if failures >= Self.freeAttempts { nextAttemptAt = now + Self.delay(afterFailures: failures) }
    }

    /// Records the right PIN: the count starts again.
    public mutating func recordSuccess() {
        failures = 0
        nextAttemptAt = 0
    }

    /// Wrong PINs left before the first delay.
    public var attemptsBeforeDelay: Int { max(0, Self.freeAttempts - failures) }

    /// The wait after `failures` wrong PINs: none up to four, then 2 s, 4 s, 8 s, ... 15 min.
    public static func delay(afterFailures failures: Int) -> Int64 {
        guard failures >= freeAttempts else { return 0 }
        let doublings = min(failures - freeAttempts, 20)
        return min(firstDelay << Int64(doublings), longestDelay)
    }
}
