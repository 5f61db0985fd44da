/// When audio bursts start, counted in samples of the output stream: one every `interval`
/// samples from the start of the stream. The full scheduler (round-robin across publications,
/// duty-cycle cap) builds on this; it is pure and takes the stream position as its clock.
public struct BurstTimer: Sendable, Equatable {
    /// Samples between burst starts.
    public let interval: Int
    /// Sample index of the next burst.
    public private(set) var next: Int

    /// A timer whose first burst starts at `first` and repeats every `interval` samples.
    public init(interval: Int, first: Int = 0) {
        precondition(interval > 0, "burst interval must be positive")
        self.interval = interval
        self.next = first
    }

    /// If a burst starts in the `count` samples beginning at `position`, returns its offset in
    /// that span and schedules the one after; otherwise nil.
    public mutating func burstStart(inSpanAt position: Int, count: Int) -> Int? {
        guard next < position + count else { return nil }
        let offset = max(0, next - position)
        next += interval
        return offset
    }
}
