import Hummingbird

// The JSON bodies of Present's API (`/v1/...`, see docs/present-api.md). Times are RFC 3339 text
// as in the rest of the API, with milliseconds beside them where a page compares times.

/// A deck as listed: its pages and page 1's image size (the slides' aspect).
package struct DeckJSON: ResponseEncodable, Sendable {
    package var deck: String
    package var title: String
    package var pages: Int
    package var bytes: Int
    package var width: Int
    package var height: Int
    package var createdTime: String
}

package struct DeckListJSON: ResponseEncodable, Sendable {
    package var decks: [DeckJSON]

    package init(decks: [DeckJSON]) {
        self.decks = decks
    }
}

/// What an upload answers (and `nearcast-hub deck add` prints).
public struct CreatedDeckJSON: ResponseEncodable, Sendable {
    public var deck: String
    public var pages: Int

    package init(deck: String, pages: Int) {
        self.deck = deck
        self.pages = pages
    }
}

/// `PUT /v1/shows/BEACON`'s body.
/// `GET /v1/phones/challenge`: the work for a phone id.
struct PhoneChallengeJSON: ResponseEncodable, Sendable {
    var challenge: String
    var bits: Int
    var expiresTime: String
    var expiresMs: Int64
}

/// `POST /v1/phones`: the solved challenge and the proof of presence the id is issued against.
struct PhoneRequest: Codable, Sendable {
    var challenge: String
    var nonce: String
    var observed: AdvertisedID
}

struct PhoneJSON: ResponseEncodable, Sendable {
    var phone: String
    var beaconName: String
    var proof: String
    var expiresTime: String
    var expiresMs: Int64
}

/// `PUT /v1/shows/BEACON/code`: joining by the code on or off, its cap, a new code now.
struct CodeUpdate: Codable, Sendable {
    var joining: Bool?
    var maxShare: Int?
    var rotate: Bool?
}

struct ShowUpdate: Codable, Sendable {
    var deck: String
    var page: Int?
}

/// A show as the API sends it (`GET /v1/shows/BEACON`, the `show` events): one flat JSON object,
/// what every follower sees and, only to the secret key, the presenter's fields beside it
/// (docs/present-api.md; openapi.yaml's `Show`).
struct ShowJSON: ResponseEncodable, Decodable, Sendable, Equatable {
    /// What every follower sees: the deck, the page and the pages shown, the reactions offered.
    struct Audience: Codable, Sendable, Equatable {
        var beaconName: String
        var deck: String
        var title: String
        var pages: Int
        var width: Int
        var height: Int
        var page: Int
        var shownUpTo: Int
        /// The pages the audience may open, ascending (`Show.openPages`).
        var shown: [Int]
        var startedTime: String
        var startedMs: Int64
        var reactions: ReactionChoicesJSON
        /// The room whose box this is, when the project's schedule has it: its name, the talk on
        /// now and the next one (`RoomDirectory`).
        var room: ShowRoomJSON?
    }

    /// What only the presenter (the secret key) gets: followers and reaction counts, the sight
    /// code, and the box. The code's fields only for a live EID beacon.
    struct Presenter: Codable, Sendable, Equatable {
        var followers: Int?
        var code: String?
        var codeExpiresTime: String?
        var codeExpiresMs: Int64?
        var joinPath: String?
        var counts: [String: Int]?
        var rotationPeriodSeconds: Int?
        /// Joining by the code: on or off, the share (%) of the followers it may let in, and the
        /// passes it gave in the last 10 minutes (on this instance).
        var codeJoining: Bool?
        var codeMaxShare: Int?
        var codePasses: Int?
        /// The show's box as the presenter needs it, and why no phone follows yet.
        var box: ShowBoxJSON?
        var reach: ShowReachJSON?
    }

    var audience: Audience
    /// Nil for a follower.
    var presenter: Presenter?

    /// Both parts into the one object (JSONEncoder gives the same keyed container to both), as
    /// flat as the API has always been; a follower's has no presenter key at all.
    func encode(to encoder: any Encoder) throws {
        try audience.encode(to: encoder)
        try presenter?.encode(to: encoder)
    }
}

extension ShowJSON {
    /// A presenter's show always has `followers`; one with none of the presenter's keys is a follower's.
    init(from decoder: any Decoder) throws {
        audience = try Audience(from: decoder)
        let presenter = try Presenter(from: decoder)
        self.presenter = presenter == Presenter() ? nil : presenter
    }
}

/// The reactions a project offers.
/// The show's box: the name the venue gave it, its last contact, the last time a phone heard it.
/// The room a show's box is in, as the phone names it: the room, the talk now and the next.
struct ShowRoomJSON: Codable, Sendable, Equatable {
    var name: String
    var now: TalkJSON?
    var next: TalkJSON?
}

struct ShowBoxJSON: Codable, Sendable, Equatable {
    var name: String
    var lastSeenTime: String?
    var lastResolvedTime: String?
}

/// Why no phone follows yet (`BoxReach`).
struct ShowReachJSON: Codable, Sendable, Equatable {
    var state: String
    var message: String
}

package struct ReactionChoicesJSON: ResponseEncodable, Decodable, Sendable, Equatable {
    struct Choice: Codable, Sendable, Equatable {
        var value: String
        /// `emoji` or `image`.
        var kind: String
        var url: String?
    }
    var enabled: Bool
    var choices: [Choice]
}

/// `PUT /v1/reactions/choices`' body.
package struct ReactionChoicesUpdate: Codable, Sendable {
    package struct Image: Codable, Sendable {
        package var name: String
        package var png: String

        package init(name: String, png: String) {
            self.name = name
            self.png = png
        }
    }
    package var enabled: Bool?
    package var emoji: [String]?
    package var images: [Image]?

    package init(enabled: Bool? = nil, emoji: [String]? = nil, images: [Image]? = nil) {
        self.enabled = enabled
        self.emoji = emoji
        self.images = images
    }
}

/// `POST /v1/reactions`' body.
struct ReactionRequest: Codable, Sendable {
    var observed: AdvertisedID
    var reaction: String
    var phone: String?
}

/// A batch of reactions as a presenter's stream carries it.
package struct ReactionBatchJSON: Codable, Sendable {
    package struct Reaction: Codable, Sendable {
        package var value: String
        package var time: Int64

        package init(value: String, time: Int64) {
            self.value = value
            self.time = time
        }
    }
    package var reactions: [Reaction]
    package var counts: [String: Int]

    package init(reactions: [Reaction], counts: [String: Int]) {
        self.reactions = reactions
        self.counts = counts
    }
}

/// `POST /v1/presence`' body and answer.
/// `POST /v1/presence`: the code on the screen (no key), or the EID the phone heard (with a pass
/// or the public key), for a pass.
struct PresenceRequest: Codable, Sendable {
    var code: String?
    var observed: AdvertisedID?
}

struct PresenceJSON: ResponseEncodable, Sendable {
    var pass: String
    var beaconName: String
    var expiresTime: String
    var expiresMs: Int64
    /// `seen` (the code) or `heard` (the box's EID).
    var proof: String
}
