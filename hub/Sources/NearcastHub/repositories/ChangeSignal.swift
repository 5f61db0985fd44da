import NIOConcurrencyHelpers

/// A number that moves whenever what a resolve reads may have changed: after every transaction
/// this instance commits that took the change counter, and on PostgreSQL whenever another instance commits a change that
/// takes the change counter (`ChangeCounter.next` sends NOTIFY `nearcast_counter` inside the
/// transaction, so it arrives only if, and once, it commits). An in-memory view remembers the
/// value it was brought up to date at: while the value stands still the view is exact and a
/// resolve needs no query; when it moved, one query for the rows changed since brings it back.
public final class ChangeSignal: Sendable {
    private let value = NIOLockedValueBox<UInt64>(0)

    public init() {}

    public var current: UInt64 { value.withLockedValue { $0 } }

    /// Something committed (here, or elsewhere on PostgreSQL).
    public func bump() {
        value.withLockedValue { $0 &+= 1 }
    }
}
