import NIOConcurrencyHelpers

/// Why no phone follows a show yet, as the presenter's page says it: the box has not contacted
/// the hub, or no phone has resolved what the box broadcasts, or phones hear it but none opened
/// the show. Built from the box's last heartbeat (in the database) and the last time a phone on
/// this instance resolved the box's EID or proved it heard it (``HeardBoxes``).
struct BoxReach: Sendable, Equatable {
    /// The box counts as silent when its last contact is older than this (it sends a heartbeat
    /// every 60 s).
    static let silentAfterMs: Int64 = 3 * 60_000
    /// No phone has heard the box when none resolved its EID for this long (the page resolves
    /// what it hears at once, and every few seconds while it hears).
    static let unheardAfterMs: Int64 = 2 * 60_000

    enum State: String, Sendable {
        case boxSilent = "box-silent"
        case notHeard = "not-heard"
        case noFollowers = "no-followers"
        case ok
    }

    var state: State
    var message: String

    /// `codeJoining`: whether phones may join with the code now (the presenter can turn it off),
    /// so the hint never suggests a way in that is closed.
    static func of(boxName: String, lastSeenMs: Int64?, lastResolvedMs: Int64?, followers: Int, codeJoining: Bool,
                   nowMs: Int64) -> BoxReach {
        if followers > 0 {
            return BoxReach(state: .ok, message: "\(followers) phone\(followers == 1 ? "" : "s") following.")
        }
        guard let seen = lastSeenMs, nowMs - seen < silentAfterMs else {
            let since = lastSeenMs.map { "since " + HubClock.timestamp(ms: $0) } ?? "yet"
            return BoxReach(state: .boxSilent,
                            message: "The box \(boxName) has not contacted the hub \(since): is it on, online and started with --hub?")
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

/// When a phone last resolved each beacon's EID (or proved it heard it), on this instance. Kept in
/// memory: it only feeds the presenter's hint, and a restart forgets it for a minute at most.
final class HeardBoxes: Sendable {
    private let lastMs = NIOLockedValueBox([BeaconRef: Int64]())

    /// A phone resolved `beacon` at `nowMs`.
    func heard(_ beacon: BeaconRef, nowMs: Int64) {
        lastMs.withLockedValue { $0[beacon] = nowMs }
    }

    func lastHeardMs(_ beacon: BeaconRef) -> Int64? {
        lastMs.withLockedValue { $0[beacon] }
    }
}
