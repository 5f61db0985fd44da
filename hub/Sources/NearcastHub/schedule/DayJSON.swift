import Hummingbird

/// `GET /v1/day`: one programme day at a glance, as the operators' page draws it: every room with
/// its box (online, heard, followed) and its talks of the day, and what the operator should put
/// right.
package struct DayJSON: ResponseEncodable, Sendable {
    struct Day: Codable, Sendable, Equatable {
        /// 1-based, as in the export.
        var index: Int
        /// As the export writes it, `YYYY-MM-DD`.
        var date: String
    }

    struct Room: Codable, Sendable, Equatable {
        var name: String
        /// As `GET /v1/rooms` gives it: by hand, else the box named as the room; nil without one.
        var beaconName: String?
        var boxBy: String?
        /// The room's box as the hub knows it now; nil without a box.
        var box: BoxStatusJSON?
        /// The room's talks of the day, by start.
        var talks: [TalkJSON]
        /// On stage now (a talk finishing first included), and the next to start: as `GET /v1/rooms`.
        var now: TalkJSON?
        var next: TalkJSON?
    }

    /// The day shown; nil when the schedule has no talks.
    var day: Day?
    /// Every day of the schedule, for choosing another (`?day=INDEX`).
    var days: [Day]
    /// The schedule's time zone name when the export gives one (times are UTC regardless).
    var timeZone: String?
    var rooms: [Room]
    /// The schedule file's own problems, the rooms' problems (`GET /v1/rooms`), then each room's
    /// box that is offline.
    var problems: [String]
}

/// A room's box now: `online` when its last heartbeat is recent (`BoxReach.silentAfterMs`),
/// `heardLately` when a phone resolved it lately (`BoxReach.unheardAfterMs`; this instance only, kept
/// in memory), and the phones following its show across instances.
struct BoxStatusJSON: Codable, Sendable, Equatable {
    var name: String
    var online: Bool
    /// The last heartbeat, RFC 3339; nil before the first.
    var lastSeenTime: String?
    var heardLately: Bool
    /// The last time a phone resolved the box on this instance; nil when none has since it started.
    var lastHeardTime: String?
    var followers: Int
}
