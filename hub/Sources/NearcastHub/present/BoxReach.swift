import NIOConcurrencyHelpers

/// Why no phone follows a show yet, as the presenter's page says it: the box has not contacted
/// the hub, or no phone has resolved what the box broadcasts, or phones hear it but none opened
/// the show. Built from the box's last heartbeat (in the database) and the last time a phone on
/// this instance resolved the box's EID or proved it heard it (``HeardBoxes``).
///
/// A show younger than ``unheardAfterMs`` is `waiting`: its first phones are still joining, so
/// "no phone has heard the box in 2 minutes" would blame the room's sound for what is only the
/// first seconds of a talk. It counts the phones as they join instead, and only after the window
/// does the hub say the box was not heard. A silent box is said at once (it is off, or offline).
struct BoxReach: Sendable, Equatable {
    /// The box counts as silent when its last contact is older than this (it sends a heartbeat
    /// every 60 s).
    static let silentAfterMs: Int64 = 3 * 60_000
    /// No phone has heard the box when none resolved its EID for this long (the page resolves
    /// what it hears at once, and every few seconds while it hears); a show is young, and
    /// `waiting`, for as long after its start.
    static let unheardAfterMs: Int64 = 2 * 60_000

    enum State: String, Sendable {
        case boxSilent = "box-silent"
        case waiting
        case notHeard = "not-heard"
        case noFollowers = "no-followers"
        case ok
    }

    var state: State
    var message: String

    /// `codeJoining`: whether phones may join with the code now (the presenter can turn it off),
    /// so the hint never suggests a way in that is closed. `startedMs`: when the show started.
    ///
    ///     BoxReach.of(boxName: "Room 101", lastSeenMs: now, lastResolvedMs: nil, followers: 3,
    ///                 codeJoining: true, startedMs: now - 10_000, nowMs: now)
    ///     // .waiting, "Waiting for the first phones… 3 following."
    static func of(boxName: String, lastSeenMs: Int64?, lastResolvedMs: Int64?, followers: Int, codeJoining: Bool,
                   startedMs: Int64, nowMs: Int64) -> BoxReach {
        let silent = lastSeenMs.map { nowMs - $0 >= silentAfterMs } ?? true
        if followers == 0 && silent {
            let since = lastSeenMs.map { "since " + HubClock.timestamp(ms: $0) } ?? "yet"
            return BoxReach(state: .boxSilent,
                            message: "The box \(boxName) has not contacted the hub \(since): is it on, online and started with --hub?")
        }
        if nowMs - startedMs < unheardAfterMs {
            return BoxReach(state: .waiting, message: "Waiting for the first phones… \(followers) following.")
        }
        if followers > 0 {
            return BoxReach(state: .ok, message: "\(followers) phone\(followers == 1 ? "" : "s") following.")
        }
        guard let resolved = lastResolvedMs, nowMs - resolved < unheardAfterMs else {
            return BoxReach(state: .notHeard,
                            message: "The box \(boxName) is connected, but no phone has heard it in the last 2 minutes: "
                                + "is the room's sound on (try the field check)"
                                + (codeJoining ? ", or let phones join with the code." : "? Joining with the code is off (J turns it on)."))
        }
        return BoxReach(state: .noFollowers,
                        message: "Phones hear the box \(boxName), but none has opened the presentation yet: show them the QR code.")
    }
}

/// When a phone last resolved each beacon's EID (or proved it heard it), on this instance and,
/// every couple of seconds, on the others (`VenueService` exchanges them through
/// `VenueRepository`). It only feeds the presenter's hint, so a few seconds late is fine.
final class HeardBoxes: Sendable {
    private struct State {
        var lastMs: [BeaconRef: Int64] = [:]
        /// Heard here since the last exchange.
        var fresh: [BeaconRef: Int64] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// A phone resolved `beacon` at `nowMs`.
    func heard(_ beacon: BeaconRef, nowMs: Int64) {
        state.withLockedValue { state in
            state.lastMs[beacon] = max(nowMs, state.lastMs[beacon] ?? .min)
            state.fresh[beacon] = nowMs
        }
    }

    func lastHeardMs(_ beacon: BeaconRef) -> Int64? {
        state.withLockedValue { $0.lastMs[beacon] }
    }

    /// What was heard here since the last call, for the other instances.
    func takeFresh() -> [BeaconRef: Int64] {
        state.withLockedValue { state in
            defer { state.fresh = [:] }
            return state.fresh
        }
    }

    /// What the other instances' phones heard.
    func merge(_ heard: [BeaconRef: Int64]) {
        state.withLockedValue { state in
            for (beacon, ms) in heard { state.lastMs[beacon] = max(ms, state.lastMs[beacon] ?? .min) }
        }
    }
}
