/// Keeps the saved beacon clock ahead of the running one, so that after a power cut the clock
/// starts at or after every beacon time already broadcast: it never goes backwards.
///
/// The box writes a *reservation*: "the clock may run up to R". On start the clock resumes at
/// the saved value and a new reservation (time + lease) is written before anything goes on air;
/// once half the lease is used, the next one is written. A power cut therefore moves the clock
/// forward by at most one lease, never back. A clean stop saves the exact time instead, so an
/// orderly restart loses nothing. With the default 600 s lease the box writes once every 5
/// minutes: 288 small atomic writes a day, nothing for an SD card.
///
/// ```swift
/// var reservation = BeaconClockReservation(saved: stateFile.beaconTime)
/// if let value = reservation.valueToSave(at: now) { try save(value); reservation.saved(value) }
/// ```
public struct BeaconClockReservation: Sendable, Equatable {
    /// Default lease, in seconds of beacon time.
    public static let defaultLeaseSeconds: UInt32 = 600
    /// Seconds between retries when a write failed.
    public static let retrySeconds: UInt32 = 60

    /// How far ahead each reservation reaches.
    public let leaseSeconds: UInt32
    /// The clock, starting where the saved value says.
    public let clock: BeaconClock
    /// The last value known to be on disk.
    public private(set) var reserved: UInt32
    private var lastAttempt: UInt32?

    /// Resumes from the value read from disk (0 on a new box).
    public init(saved: UInt32, leaseSeconds: UInt32 = defaultLeaseSeconds) {
        precondition(leaseSeconds >= 2, "a lease shorter than 2 s cannot be renewed at half-time")
        self.leaseSeconds = leaseSeconds
        self.clock = BeaconClock(startingAt: saved)
        self.reserved = saved
    }

    /// The value to write now, or nil when the reservation still has more than half its lease
    /// left (or a failed write is waiting out its retry delay).
    public func valueToSave(at time: UInt32) -> UInt32? {
        guard UInt64(time) + UInt64(leaseSeconds / 2) >= UInt64(reserved) else { return nil }
        if let lastAttempt, UInt64(time) < UInt64(lastAttempt) + UInt64(Self.retrySeconds) { return nil }
        return UInt32(clamping: UInt64(time) + UInt64(leaseSeconds))
    }

    /// Records that `value` is now on disk.
    public mutating func saved(_ value: UInt32) {
        reserved = max(reserved, value)
        lastAttempt = nil
    }

    /// Records a failed write at `time`, so the next try waits ``retrySeconds``.
    public mutating func saveFailed(at time: UInt32) {
        lastAttempt = time
    }

    /// True when the clock has run past the last saved reservation: a power cut now could send
    /// it backwards (writes are failing).
    public func isUnprotected(at time: UInt32) -> Bool { time > reserved }
}
