/// Names one publication held by the scheduler: its slot and the slot's generation, so a handle
/// kept after its publication was removed never reaches the publication that reused the slot.
public struct PublicationSlot: Sendable, Hashable, CustomStringConvertible {
    /// Index of the slot, 0 ..< ``SchedulerConfiguration/maximumPublications``.
    public let index: Int
    /// Generation of the slot when the publication was added.
    public let generation: UInt32

    public var description: String { "publication \(index)" }
}

/// One thing the scheduler wants done, at a tick of its clock.
public enum ScheduleAction: Sendable, Equatable {
    /// Start an audio burst carrying `token` at tick `at`.
    case audioBurst(PublicationSlot, token: Token, at: Int64)
    /// Put `token` on advertising set `set`, from random address `address`, and make sure the
    /// set is enabled. When the address differs from the set's last one the advertiser must
    /// disable, set the address, set the data and enable again.
    case advertise(set: Int, PublicationSlot, token: Token, address: BLEAddress, at: Int64)
    /// Disable advertising set `set`: nothing on it may broadcast now.
    case stopAdvertising(set: Int, at: Int64)
    /// The scheduler needs the EID of `publication` for the epoch starting at beacon time
    /// `epochStart`; answer with ``TokenScheduler/provide(_:for:epochStart:)``. Asked once per
    /// epoch, well before the switch (AES stays out of the tick).
    case tokenNeeded(PublicationSlot, epochStart: UInt32)
    /// `publication` switched to `token` (a new EID epoch) at tick `at`, on every medium at once.
    case tokenChanged(PublicationSlot, token: Token, at: Int64)
}

/// The actions of one tick, in a fixed-capacity buffer (no heap).
public struct ScheduleActions: Sendable {
    /// The most actions one tick records; a tick that has more leaves the rest for the next.
    public static let capacity = 64

    private var storage: FixedArray<Tuple64<ScheduleAction>, ScheduleAction> =
        FixedArray(repeating: .stopAdvertising(set: 0, at: 0))
    /// Actions recorded.
    public private(set) var count = 0

    public init() {}

    /// Action `index`, in the order they happen.
    public subscript(index: Int) -> ScheduleAction {
        precondition(index >= 0 && index < count, "action index out of range")
        return storage[index]
    }

    /// True when no more actions fit.
    public var isFull: Bool { count == Self.capacity }

    mutating func removeAll() { count = 0 }

    mutating func append(_ action: ScheduleAction) {
        precondition(!isFull, "schedule action buffer is full")
        storage[count] = action
        count += 1
    }
}
