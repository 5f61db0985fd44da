/// What a run measured, printed as text (`Report.text`) or JSON (`--json`).
struct Report: Encodable, Sendable {
    struct Setup: Encodable, Sendable {
        var phones: Int
        var kinds: [String: Int]
        var entry: String
        var instances: Int
        var arrivalSeconds: Double
        var sourceAddresses: Int
        var workBits: Int?
        var eventLoops: Int
        var images: Bool
    }

    struct Join: Encodable, Sendable {
        var following: Int
        var failed: Int
        var seconds: Double
        /// Arrival (the phone sets out) -> its first `show` event.
        var latency: Distribution
        var failures: [String: Int]
        /// Those that came while the phones joined (until they all followed or the timeout).
        var refusals: [String: Int]
        var connectionErrors: [String: Int]
        /// The presenter's count of followers (every instance) after the join.
        var presenterFollowers: Int?
    }

    struct InstanceMemory: Encodable, Sendable {
        var name: String
        var followers: Int?
        var rssBeforeKiB: Int?
        var rssAfterKiB: Int?
        var perFollowerKiB: Double?
    }

    struct Turn: Encodable, Sendable {
        var page: Int
        var status: Int
        /// The PUT's own round trip.
        var putMs: Double
        var latency: Distribution
        var missed: Int
    }

    struct Turns: Encodable, Sendable {
        /// PUT sent -> each following phone's `show` event with that page, every turn together.
        var latency: Distribution
        var missed: Int
        /// The presenter's PUT sent -> its answer.
        var put: Distribution
        var perTurn: [Turn]
        /// PUT sent -> the page's image loaded, when the phones load images.
        var images: Distribution?
        var imageFailures: [String: Int]
    }

    struct Reactions: Encodable, Sendable {
        var phones: Int
        var seconds: Double
        var perPhonePerSecond: Double
        var sent: Int
        var accepted: Int
        var refused: [String: Int]
        var drawn: Int
        /// The hub's admission stamp -> the presenter's stream read it (exact per reaction drawn).
        var admittedToPresenter: Distribution
        /// A phone's POST sent -> the presenter's stream read it: each drawn reaction matched to the
        /// one accepted reaction of its value whose POST was under way when the hub stamped it.
        var sentToPresenter: Distribution
        var matched: Int
        /// POST sent -> its 202.
        var roundTrip: Distribution
    }

    /// An instance killed under the room (`--kill-instance`), its page turned at once.
    struct Kill: Encodable, Sendable {
        struct Reactions: Encodable, Sendable {
            var phones: Int
            var sent: Int
            /// Answered 202: each written to the database before its answer.
            var accepted: Int
            var otherAnswers: [String: Int]
            /// Answered by no one (no answer, or the balancer's 502: the hub that took it died): that
            /// hub may have counted it before it died. The balancer does not send a POST again
            /// (`disable-l7-retry`), so none is counted twice.
            var fateUnknown: Int
            /// The show's counts (every value) before the phase and once settled after it.
            var countedBefore: Int?
            var countedAfter: Int?
            /// After less before: from `accepted` (nothing acknowledged lost) to `accepted` +
            /// `fateUnknown` (nothing counted twice).
            var counted: Int?

            /// Nothing acknowledged lost, nothing counted twice or out of nowhere.
            var countedAsAnswered: Bool {
                guard let counted else { return false }
                return (accepted...(accepted + fateUnknown)).contains(counted)
            }
        }

        var instance: String
        var killed: Bool
        var killError: String?
        /// Phones following before the kill, and those whose stream ended with it.
        var followers: Int
        var streamsLost: Int
        /// The page turned right after the kill, through the balancer, and its PUT's answer.
        var page: Int
        var turnStatus: Int
        var turnMs: Double
        /// The kill -> each following phone's first `show` event with the new page; all of
        /// them, and those whose stream the kill ended.
        var back: Distribution
        var backLost: Distribution
        /// Following before the kill, without the new page at the timeout.
        var neverBack: Int
        /// Streams opened again (each try of each phone).
        var reopened: Int
        /// Refusals and connection errors that came during the phase, by step.
        var refusals: [String: Int]
        var connectionErrors: [String: Int]
        var reactions: Reactions
    }

    struct Streams: Encodable, Sendable {
        var lost: Int
        var revoked: Int
        var ended: Int
        var reconnects: Int
    }

    struct Phase: Encodable, Sendable {
        var phase: String
        var seconds: Double
        /// Cores each process used (CPU seconds over wall seconds).
        var cores: [String: Double]
    }

    struct Tool: Encodable, Sendable {
        var rssKiB: Int?
        var peakRSSKiB: Int?
        var perFollowerKiB: Double?
        var descriptors: Int
        var cpuSeconds: Double?
    }

    var setup: Setup
    var join: Join
    var memory: [InstanceMemory]
    var turns: Turns?
    var reactions: Reactions?
    var kill: Kill?
    var streams: Streams
    var phases: [Phase]
    var tool: Tool
}

extension Report {
    /// The report for people: what was run, then each measurement with its figures.
    var text: String {
        var lines: [String] = []
        let kinds = setup.kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        lines.append("phones: \(setup.phones) (\(kinds)) through \(setup.entry) to \(setup.instances) hub instance(s); "
                     + "arriving over \(setup.arrivalSeconds) s from \(setup.sourceAddresses == 0 ? "the kernel's source address" : "\(setup.sourceAddresses) source addresses"); "
                     + "phone id work \(setup.workBits.map { "\($0) bits" } ?? "as the hub says"); \(setup.eventLoops) event loop(s)")
        lines.append("")
        lines.append("join: \(join.following) of \(setup.phones) following after \(Self.seconds(join.seconds)) s, \(join.failed) not; "
                     + "the presenter counts \(join.presenterFollowers.map(String.init) ?? "?")")
        lines.append("  arrival -> first show event: \(join.latency.text)")
        for (reason, count) in join.failures.sorted(by: { $0.value > $1.value }).prefix(8) { lines.append("  not following: \(reason) (\(count))") }
        for (what, count) in join.refusals.sorted(by: { $0.value > $1.value }) { lines.append("  refused: \(what) (\(count))") }
        for (what, count) in join.connectionErrors.sorted(by: { $0.value > $1.value }) { lines.append("  connection error: \(what) (\(count))") }
        lines.append("")
        lines.append("memory per follower (each instance's RSS after the join less before, over its followers):")
        for instance in memory {
            lines.append("  \(instance.name): \(instance.followers.map(String.init) ?? "?") followers, RSS \(instance.rssBeforeKiB.map(String.init) ?? "?") -> "
                         + "\(instance.rssAfterKiB.map(String.init) ?? "?") KiB, \(instance.perFollowerKiB.map { Self.seconds($0) } ?? "?") KiB a follower")
        }
        if let turns {
            lines.append("")
            lines.append("page turn -> phones (the presenter's PUT sent -> each phone's show event read), \(turns.perTurn.count) turns: \(turns.latency.text); missed \(turns.missed)")
            lines.append("  the PUT itself (sent -> answered): \(turns.put.text)")
            for turn in turns.perTurn {
                lines.append("  page \(turn.page) (HTTP \(turn.status) in \(Distribution.format(turn.putMs)) ms): \(turn.latency.text)"
                             + (turn.missed > 0 ? "; missed \(turn.missed)" : ""))
            }
            if let images = turns.images { lines.append("  page turn -> its image loaded: \(images.text)") }
            for (what, count) in turns.imageFailures.sorted(by: { $0.value > $1.value }) { lines.append("  image not loaded: \(what) (\(count))") }
        }
        if let reactions {
            lines.append("")
            lines.append("reactions: \(reactions.phones) phones, \(reactions.perPhonePerSecond)/s each for \(Self.seconds(reactions.seconds)) s: "
                         + "\(reactions.sent) sent, \(reactions.accepted) accepted, \(reactions.drawn) drawn on the presenter's stream (\(reactions.matched) matched to their POST)")
            for (what, count) in reactions.refused.sorted(by: { $0.value > $1.value }) { lines.append("  refused: \(what) (\(count))") }
            lines.append("  phone's POST -> presenter: \(reactions.sentToPresenter.text)")
            lines.append("  hub's admission -> presenter: \(reactions.admittedToPresenter.text)")
            lines.append("  POST -> 202: \(reactions.roundTrip.text)")
        }
        if let kill {
            lines.append("")
            lines.append("\(kill.instance) killed (SIGKILL\(kill.killError.map { " failed: \($0)" } ?? "")) with \(kill.followers) phones following; "
                         + "page \(kill.page) turned at once through the balancer: HTTP \(kill.turnStatus) in \(Distribution.format(kill.turnMs)) ms")
            lines.append("  kill -> every phone on page \(kill.page): \(kill.back.text); never back \(kill.neverBack)")
            lines.append("  the \(kill.streamsLost) phones whose stream it ended: \(kill.backLost.text); streams opened again \(kill.reopened)")
            for (what, count) in kill.refusals.sorted(by: { $0.value > $1.value }) { lines.append("  refused: \(what) (\(count))") }
            for (what, count) in kill.connectionErrors.sorted(by: { $0.value > $1.value }) { lines.append("  connection error: \(what) (\(count))") }
            let reactions = kill.reactions
            let other = reactions.otherAnswers.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("  reactions around the kill: \(reactions.phones) phones, \(reactions.sent) sent, \(reactions.accepted) answered 202"
                         + (other.isEmpty ? "" : " (other answers: \(other))")
                         + "; the show counted \(reactions.counted.map(String.init) ?? "?") more (\(reactions.countedBefore.map(String.init) ?? "?") -> "
                         + "\(reactions.countedAfter.map(String.init) ?? "?"))"
                         + (reactions.countedAsAnswered ? ": none lost, none twice" : ": NOT \(reactions.accepted) to \(reactions.accepted + reactions.fateUnknown)"))
        }
        lines.append("")
        lines.append("streams: \(streams.lost) lost, \(streams.revoked) revoked, \(streams.ended) ended, \(streams.reconnects) opened again")
        lines.append("CPU, in cores (2 on this machine: everything shares them):")
        for phase in phases {
            let cores = phase.cores.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format2: $0.value))" }.joined(separator: ", ")
            lines.append("  \(phase.phase) (\(Self.seconds(phase.seconds)) s): \(cores)")
        }
        lines.append("this tool: RSS \(tool.rssKiB.map(String.init) ?? "?") KiB (peak \(tool.peakRSSKiB.map(String.init) ?? "?")), "
                     + "\(tool.perFollowerKiB.map { Self.seconds($0) } ?? "?") KiB a follower; \(tool.descriptors) descriptors; "
                     + "CPU \(tool.cpuSeconds.map { Self.seconds($0) } ?? "?") s")
        return lines.joined(separator: "\n")
    }

    static func seconds(_ value: Double) -> String { String(format2: value) }
}

extension String {
    /// `value` with two decimals.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let whole = abs(hundredths) / 100, fraction = abs(hundredths) % 100
        self = "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
