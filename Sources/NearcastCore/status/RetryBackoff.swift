/// When to try a missing device again: at once the first time, then after a wait that doubles
/// from `first` up to `longest` seconds, and back to `first` once the device works.
///
/// A USB sound card or Bluetooth dongle unplugged overnight is retried every `longest` seconds
/// rather than in a busy loop, and one that comes straight back is found within a second or two.
/// Time is passed in (seconds on any monotonic scale).
public struct RetryBackoff: Sendable, Equatable {
    public let first: Double
    public let longest: Double
    /// The wait that follows the next failure.
    public private(set) var wait: Double
    /// When the next attempt is due (−∞: now).
    public private(set) var nextAttempt = -Double.infinity
    /// Failures in a row since the last success.
    public private(set) var failures = 0

    public init(first: Double = 1, longest: Double = 30) {
        precondition(first > 0 && longest >= first, "backoff needs 0 < first <= longest")
        self.first = first
        self.longest = longest
        wait = first
    }

    /// Whether an attempt is due at `now`.
    public func isDue(at now: Double) -> Bool { now >= nextAttempt }

    /// Records a failed attempt at `now`; returns the wait until the next one.
    @discardableResult
    public mutating func failed(at now: Double) -> Double {
        let waited = wait
        nextAttempt = now + waited
        wait = min(wait * 2, longest)
        failures += 1
        return waited
    }

    /// Records a success: the next failure is retried after `first` again.
    public mutating func succeeded() {
        wait = first
        nextAttempt = -.infinity
        failures = 0
    }
}
