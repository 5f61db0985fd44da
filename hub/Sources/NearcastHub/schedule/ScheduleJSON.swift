import Hummingbird

/// `PUT /v1/schedule`'s answer (and `nearcast-hub schedule import`'s output): the counts as the
/// file has them, the problems found in it that did not refuse it, and what it changed.
package struct ScheduleImportJSON: ResponseEncodable, Sendable {
    var rooms: Int
    var talks: Int
    var days: Int
    var problems: [String]
    var changes: ScheduleChangeCounts
    /// Talks on stage that the import removed or moved: each finishes first in its old slot.
    var finishingFirst: [String]
}

/// `GET /v1/schedule`: the schedule in force, counted, and where and when it came from.
package struct ScheduleSummaryJSON: ResponseEncodable, Sendable {
    var rooms: Int
    var talks: Int
    var days: Int
    /// RFC 3339; nil before the first import.
    var importedAt: String?
    var source: String?
    var lastChange: ScheduleChangeCounts?
    /// The address the schedule is kept in step with, when it came from one.
    var refresh: Refresh?

    /// How the schedule is kept in step with its address.
    struct Refresh: Codable, Sendable {
        var url: String
        var everyMinutes: Int
        var lastCheckedAt: String?
        /// Why the last fetch or file failed (the schedule in force stayed); nil when it worked.
        var lastError: String?

        init(_ subscription: ScheduleSubscription) {
            url = subscription.url
            everyMinutes = subscription.everyMinutes
            lastCheckedAt = subscription.lastCheckedMs.map(HubClock.timestamp(ms:))
            lastError = subscription.lastError
        }
    }
}

/// `PUT /v1/schedule/source`'s body: the conference tool's address of its export.
struct ScheduleSourceUpdate: Codable, Sendable {
    var url: String
    /// How often to fetch it again, in minutes; 0 imports it once. Default 15.
    var everyMinutes: Int?
    var timeZone: String?
}

/// One talk as the API shows it: times in RFC 3339 (UTC).
struct TalkJSON: Codable, Sendable, Equatable {
    var guid: String
    var title: String
    var persons: [String]
    var start: String
    var end: String
    /// The deck its speaker uploaded; nil until one is.
    var deck: String?
    /// The address its speaker uploads the deck to (`TalkUploads`); only to the secret key.
    var uploadPath: String?

    init(_ talk: ScheduledTalk, deck: String? = nil, uploadPath: String? = nil) {
        guid = talk.guid
        title = talk.title
        persons = talk.persons
        start = HubClock.timestamp(ms: talk.startMs)
        end = HubClock.timestamp(ms: talk.endMs)
        self.deck = deck
        self.uploadPath = uploadPath
    }
}

/// `GET /v1/rooms`: every room with its box, the talk on now and the next one, and what the
/// operator should put right (a room without a box, a box in no room).
package struct RoomsJSON: ResponseEncodable, Sendable {
    struct Room: Codable, Sendable, Equatable {
        var name: String
        /// The room's box: given by hand (`PUT /v1/rooms/NAME`), else the box whose name is the
        /// room's; nil when neither.
        var beaconName: String?
        /// How the box was found: "hand", "name", or nil without one.
        var boxBy: String?
        var now: TalkJSON?
        var next: TalkJSON?
    }

    var rooms: [Room]
    var problems: [String]
}

/// `GET /v1/talks`: every talk of the schedule in force, in order, with its room, its deck and its
/// upload address; the talks still without a deck counted.
package struct TalksJSON: ResponseEncodable, Sendable {
    struct Talk: Codable, Sendable {
        var room: String
        var talk: TalkJSON
    }

    var talks: [Talk]
    var withoutDeck: Int
}

/// `POST /upload/TOKEN`'s answer: the deck stored for the talk.
struct TalkDeckJSON: ResponseEncodable, Sendable {
    var deck: String
    var pages: Int
    var talk: String
}

/// `PUT /v1/rooms/NAME`'s body: the room's box by hand, or null to match by name again.
struct RoomBoxUpdate: Codable, Sendable {
    var beaconName: String?
}
