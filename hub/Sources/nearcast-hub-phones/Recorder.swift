import NIOConcurrencyHelpers

/// Everything the phones and the presenter observe, kept behind one lock: every event loop and
/// task writes here, and the report reads it at the end. A record is a few words; the lock is
/// taken once per event a phone receives (10,000 a page turn), uncontended with one loop.
final class Recorder: Sendable {
    /// One phone's observations.
    struct Phone {
        /// When it set out (monotonic ns), and when its first `show` event came: it follows.
        var arrivedNs: UInt64 = 0
        var followingNs: UInt64?
        /// Why it does not follow, when it does not: "STEP: HTTP 403", "STEP: connection refused".
        var failure: String?
        /// Each page's first `show` event at that page (monotonic ns).
        var pages: [Int: UInt64] = [:]
        /// Each page's image loaded (monotonic ns), when the phones load them.
        var images: [Int: UInt64] = [:]
        var streamsLost = 0
        /// When its stream was last lost (monotonic ns).
        var lostNs: UInt64?
        var revoked = 0
        var ended = 0
    }

    /// A reaction a phone sent: its value, when it went and when its answer came (wall ms), the
    /// answer's status (0: the connection failed).
    struct SentReaction {
        var value: String
        var sentMs: Double
        var answeredMs: Double
        var status: Int
    }

    /// A reaction drawn on the presenter's stream: its value, the hub's stamp when it admitted it
    /// (wall ms, the hub's clock on this machine) and when the presenter's stream read it.
    struct DrawnReaction {
        var value: String
        var admittedMs: Double
        var arrivedMs: Double
    }

    struct State {
        var phones: [Phone]
        /// What refused the phones: "STEP HTTP STATUS" -> count, and connections that failed by reason.
        var refusals: [String: Int] = [:]
        var connectionErrors: [String: Int] = [:]
        var imageFailures: [String: Int] = [:]
        /// Each turn: its page, when the presenter's PUT went and was answered (monotonic ns), the
        /// answer's status.
        var turns: [(page: Int, sentNs: UInt64, answeredNs: UInt64, status: Int)] = []
        var sent: [SentReaction] = []
        var drawn: [DrawnReaction] = []
        /// The presenter's stream's `followers` as it last said.
        var presenterFollowers: Int?
        var reconnects = 0
    }

    let state: NIOLockedValueBox<State>

    init(phones: Int) {
        state = NIOLockedValueBox(State(phones: Array(repeating: Phone(), count: phones)))
    }

    func update<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLockedValue(body)
    }

    func phone(_ index: Int, _ body: (inout Phone) -> Void) {
        state.withLockedValue { body(&$0.phones[index]) }
    }

    /// A step answered with `status` (and the API's error `message`, when it gave one).
    func refused(_ step: String, status: Int, message: String? = nil, phone: Int?) {
        let what = "\(step) HTTP \(status)" + (message.map { ": \($0.prefix(120))" } ?? "")
        state.withLockedValue { state in
            state.refusals[what, default: 0] += 1
            if let phone, state.phones[phone].failure == nil { state.phones[phone].failure = what }
        }
    }

    func connectionFailed(_ step: String, _ failure: ConnectionFailure, phone: Int?) {
        state.withLockedValue { state in
            state.connectionErrors["\(step): \(failure.reason)", default: 0] += 1
            if let phone, state.phones[phone].failure == nil { state.phones[phone].failure = "\(step): \(failure.reason)" }
        }
    }

    var snapshot: State { state.withLockedValue { $0 } }
}
