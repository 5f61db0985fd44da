/// Turns a stream of heard tokens into found and lost events for one subscription, the way
/// Nearby's message found/lost handlers worked: found the first time a token is heard, lost
/// once it has not been heard for ``lostAfter`` ticks.
///
/// Fixed capacity and allocation-free: the tracker sits on the decoding path. When it is full,
/// the token heard longest ago is reported lost to make room.
public struct SightingTracker: Sendable {
    /// Tokens tracked at once.
    public static let capacity = 32

    /// A token currently present.
    public struct Sighting: Sendable, Equatable {
        public var token: Token
        /// Mediums it has been heard on.
        public var mediums: DiscoveryMediums
        public var firstSeen: Int64
        public var lastSeen: Int64
    }

    /// What an observation or an expiry produced.
    public enum Event: Sendable, Equatable {
        case found(Token, medium: DiscoveryMediums)
        case lost(Token)
    }

    /// Ticks without hearing a token before it is lost.
    public let lostAfter: Int64
    private var entries: FixedArray<Tuple32<Sighting>, Sighting> =
        FixedArray(repeating: Sighting(token: Token(kind: .direct, packed: 0, count: 1)!, mediums: [],
                                        firstSeen: 0, lastSeen: 0))
    /// Tokens present now.
    public private(set) var count = 0

    public init(lostAfter: Int64) {
        precondition(lostAfter > 0, "the lost timeout must be positive")
        self.lostAfter = lostAfter
    }

    /// Sighting `index` (0 ..< count).
    public subscript(index: Int) -> Sighting {
        precondition(index >= 0 && index < count, "sighting index out of range")
        return entries[index]
    }

    /// Records that `token` was heard on `medium` at `time`; `report` gets a found event when it
    /// is new (and a lost event first when the oldest had to make room).
    public mutating func observe(_ token: Token, on medium: DiscoveryMediums, at time: Int64,
                                 report: (Event) -> Void) {
        for index in 0..<count where entries[index].token == token {
            entries[index].lastSeen = max(entries[index].lastSeen, time)
            entries[index].mediums.formUnion(medium)
            return
        }
        if count == Self.capacity {
            var oldest = 0
            for index in 1..<count where entries[index].lastSeen < entries[oldest].lastSeen { oldest = index }
            report(.lost(entries[oldest].token))
            removeEntry(at: oldest)
        }
        entries[count] = Sighting(token: token, mediums: medium, firstSeen: time, lastSeen: time)
        count += 1
        report(.found(token, medium: medium))
    }

    /// Reports every token not heard for ``lostAfter`` ticks as lost and forgets it.
    public mutating func expire(at time: Int64, report: (Event) -> Void) {
        var index = 0
        while index < count {
            if time - entries[index].lastSeen > lostAfter {
                report(.lost(entries[index].token))
                removeEntry(at: index)
            } else {
                index += 1
            }
        }
    }

    /// Forgets every token, reporting each as lost (a subscription ending, scanning stopping).
    public mutating func removeAll(report: (Event) -> Void) {
        for index in 0..<count { report(.lost(entries[index].token)) }
        count = 0
    }

    private mutating func removeEntry(at index: Int) {
        count -= 1
        entries[index] = entries[count]
    }
}
