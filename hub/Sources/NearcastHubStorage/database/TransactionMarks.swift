import NearcastHub
/// Whether the transaction running in this task took the change counter: only those move the
/// `ChangeSignal` when they commit (a reaction batch or a follower count changes nothing a
/// resolve reads, and should not send the views back to the database).
final class TransactionMarks: @unchecked Sendable {
    // Written and read only by the one task the transaction runs in.
    var tookChangeCounter = false

    @TaskLocal static var current: TransactionMarks?
}
