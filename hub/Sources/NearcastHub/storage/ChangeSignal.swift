import NIOConcurrencyHelpers

/// A number that moves whenever what a resolve reads may have changed: after every transaction
/// this instance commits that took the change counter, and on PostgreSQL whenever another instance commits a change that
/// takes the change counter (`ChangeCounter.next` sends NOTIFY `nearcast_counter` inside the
/// transaction, so it arrives only if, and once, it commits). An in-memory view remembers the
/// value it was brought up to date at: while the value stands still the view is exact and a
/// resolve needs no query; when it moved, one query for the rows changed since brings it back.
public final class ChangeSignal: Sendable {
    /// PostgreSQL's channel for changes made through any instance.
    static let channel = "nearcast_counter"

    private let value = NIOLockedValueBox<UInt64>(0)

    public init() {}

    public var current: UInt64 { value.withLockedValue { $0 } }

    /// Something committed (here, or elsewhere on PostgreSQL).
    public func bump() {
        value.withLockedValue { $0 &+= 1 }
    }
}

/// Whether the transaction running in this task took the change counter: only those move the
/// `ChangeSignal` when they commit (a reaction batch or a follower count changes nothing a
/// resolve reads, and should not send the views back to the database).
final class TransactionMarks: @unchecked Sendable {
    // Written and read only by the one task the transaction runs in.
    var tookChangeCounter = false

    @TaskLocal static var current: TransactionMarks?
}
