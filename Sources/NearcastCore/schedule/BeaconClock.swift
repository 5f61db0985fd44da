/// The box's own Eddystone beacon time: a 32-bit count of seconds that starts where the last
/// run left it (a Pi has no real-time clock) and advances with the time the box has been
/// running. Time is passed in; the clock never reads one.
///
/// ```swift
/// let clock = BeaconClock(startingAt: savedSeconds)
/// clock.time(elapsedSeconds: 12.5)   // savedSeconds + 12
/// ```
public struct BeaconClock: Sendable, Equatable {
    /// Beacon time when this run started.
    public let start: UInt32

    public init(startingAt start: UInt32) { self.start = start }

    /// Beacon time after `elapsedSeconds` of running (whole seconds, saturating at 2^32 − 1).
    public func time(elapsedSeconds: Double) -> UInt32 {
        guard elapsedSeconds > 0 else { return start }
        let total = UInt64(start) + UInt64(elapsedSeconds.rounded(.down))
        return UInt32(clamping: total)
    }
}
