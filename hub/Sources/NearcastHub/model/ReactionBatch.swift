/// One show's reactions of one batch (150 ms), as the storage counts them
/// (`ShowRepository.addReactions`): every reaction accepted, and the few the presenter's screen
/// draws.
///
/// A tap sent with a key (`Idempotency-Key`) carries a receipt, its phone's identity and the key.
/// The storage records receipts in the same transaction as the counts, and a tap whose receipt
/// it already holds is not counted again: the phone sent it a second time after losing the
/// answer, or HAProxy sent it to another instance after its hub died having counted it. So a tap
/// counts once however often it is sent, on whichever instance, for as long as receipts are kept
/// (`receiptMilliseconds`).
package struct ReactionBatch: Sendable {
    /// A tap's identity: the phone (`PhoneIDs.Phone.identity`) and the key it gave the tap.
    package struct Receipt: Sendable, Hashable {
        package var phone: String
        package var tap: String

        package init(phone: String, tap: String) {
            self.phone = phone
            self.tap = tap
        }
    }

    /// One reaction: its value, when it was accepted, the slide on the screen then, its receipt.
    package struct Reaction: Sendable {
        package var value: String
        package var timeMs: Int64
        package var slide: ReactionTally.Slide
        package var receipt: Receipt?

        package init(value: String, timeMs: Int64, slide: ReactionTally.Slide, receipt: Receipt? = nil) {
            self.value = value
            self.timeMs = timeMs
            self.slide = slide
            self.receipt = receipt
        }
    }

    /// How long a receipt is kept: a phone's retries and HAProxy's come within seconds; ten
    /// minutes leaves room for a phone that was offline a while.
    package static let receiptMilliseconds: Int64 = 600_000

    package var reactions: [Reaction]
    /// What the presenter's screen draws of them (`ReactionDesk.draw`).
    package var drawn: [Reaction]

    package init(reactions: [Reaction], drawn: [Reaction]) {
        self.reactions = reactions
        self.drawn = drawn
    }

    /// The batch's receipts, each once, in the order the taps came.
    package var receipts: [Receipt] {
        var seen = Set<Receipt>()
        return reactions.compactMap { $0.receipt }.filter { seen.insert($0).inserted }
    }

    /// When the batch's newest reaction was accepted: the time its receipts are recorded at.
    package var latestMs: Int64 { reactions.map(\.timeMs).max() ?? 0 }

    /// What the batch counts once the storage has said which receipts are new (`fresh`, recorded
    /// now): reactions without a key, and the first of each tap whose receipt is fresh. The
    /// tallies by slide and minute (`ReactionTally.tallied`), and what the presenter is sent.
    package func counting(fresh: Set<Receipt>) -> (tallied: [ReactionTally], drawn: [ReactionBatchJSON.Reaction]) {
        var used = Set<Receipt>()
        let counted = reactions.filter { reaction in
            guard let receipt = reaction.receipt else { return true }
            return fresh.contains(receipt) && used.insert(receipt).inserted
        }
        let tallied = ReactionTally.tallied(counted.lazy.map { (slide: $0.slide, timeMs: $0.timeMs, value: $0.value) })
        // A tap drawn is one phone's, and the drawing takes one reaction a phone: at most one copy.
        let drawn = drawn.filter { $0.receipt.map(fresh.contains) ?? true }.map { ReactionBatchJSON.Reaction(value: $0.value, time: $0.timeMs) }
        return (tallied, drawn)
    }
}
