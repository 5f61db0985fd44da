import Foundation

/// What a show is, whichever storage keeps it (`ShowRepository`), and the rules both storages
/// apply: how a show moves and switches decks, which page a deck has, what the presenter is told
/// of the box, how long an instance's follower count counts.
/// One show: a deck on a beacon (the room's box).
package struct Show: Sendable, Equatable {
    package var project: String
    package var beaconName: String
    package var deckID: String
    /// The live page, on the projected screen since `updatedMs`.
    package var page: Int
    /// The pages before it that stayed on the screen long enough to count as shown.
    package var shown: ShownPages
    package var startedMs: Int64
    package var updatedMs: Int64
    package var counts: [String: Int]
    /// How phones may join by the code on the screen; what a pass is bound to.
    package var sightCode: SightCode

    package init(project: String, beaconName: String, deckID: String, page: Int, shown: ShownPages, startedMs: Int64,
                 updatedMs: Int64, counts: [String: Int], sightCode: SightCode) {
        self.project = project
        self.beaconName = beaconName
        self.deckID = deckID
        self.page = page
        self.shown = shown
        self.startedMs = startedMs
        self.updatedMs = updatedMs
        self.counts = counts
        self.sightCode = sightCode
    }

    /// What the audience may open: the pages shown and the live one.
    package var openPages: ShownPages {
        var open = shown
        open.insert(page)
        return open
    }

    /// The furthest page the audience may open (the API's `shownUpTo`).
    package var shownUpTo: Int { max(shown.highest ?? page, page) }

    /// Moves the show to `page` at `nowMs`: the page it leaves counts as shown if it stayed
    /// on the screen for the dwell.
    package mutating func move(to page: Int, nowMs: Int64) {
        guard page != self.page else { return }
        if nowMs - updatedMs >= ShownPages.dwellMs { shown.insert(self.page) }
        self.page = page
        updatedMs = nowMs
    }

    /// Moves the show to `page` of `deckID`. A different deck switches the show to it: the
    /// show goes on (its start, its reaction counts, its followers and their passes carry
    /// over) and only the pages shown start again, from the new deck's `page`.
    package mutating func go(deckID: String, page: Int, nowMs: Int64) {
        guard deckID != self.deckID else { return move(to: page, nowMs: nowMs) }
        self.deckID = deckID
        self.page = page
        shown = ShownPages()
        updatedMs = nowMs
    }

    /// A 400 unless `page` is one of the deck's `pages`.
    package static func check(page: Int, of deckID: String, pages: Int) throws(APIError) {
        guard pages >= 1, (1...pages).contains(page) else {
            throw APIError.invalid("page", "\(page) is not a page of deck \(deckID) (1-\(pages))")
        }
    }
}

extension Show {
    /// A show's sight-code settings: the salt of the code shown now (a new one, K, revokes every
    /// pass given before it), whether phones may join by the code (J) and the share of the
    /// followers that may hold passes from it.
    package struct SightCode: Sendable, Equatable {
        package var salt: String
        package var joining: Bool
        package var share: Int

        package init(salt: String, joining: Bool, share: Int) {
            self.salt = salt
            self.joining = joining
            self.share = share
        }

        /// Whether a change of the settings takes a new salt: a new code asked for (K), and
        /// joining by code turned off (J), which revokes every pass given so far (phones that
        /// hear the box renew theirs at once), so turning it on again lets no old pass back in.
        package static func needsNewSalt(joining: Bool?, rotate: Bool) -> Bool { rotate || joining == false }

        /// A new show's: a new salt, joining on, half the followers.
        package static func fresh() -> SightCode { SightCode(salt: newSalt(), joining: defaultCodeJoining, share: defaultCodeShare) }
    }

    /// A show's beacon as the sight code needs it: the show's code settings.
    package struct LiveBeacon: Sendable {
        package var project: String
        package var beaconName: String
        /// The beacon's EID rotation exponent (a new EID every 2^exponent s).
        package var exponent: Int
        package var codeSalt: String
        package var codeJoining: Bool
        /// The share of the show's followers (%) that may hold passes from the code.
        package var codeShare: Int

        package init(project: String, beaconName: String, exponent: Int, codeSalt: String, codeJoining: Bool,
                     codeShare: Int) {
            self.project = project
            self.beaconName = beaconName
            self.exponent = exponent
            self.codeSalt = codeSalt
            self.codeJoining = codeJoining
            self.codeShare = codeShare
        }
    }

    /// The sight code's settings of a new show: joining by code on, half the followers.
    package static let defaultCodeJoining = true
    package static let defaultCodeShare = 50

    /// A show's box as the presenter sees it: the name the venue gave it and its last contact.
    package typealias Box = (name: String, lastSeenMs: Int64?)

    /// The box of `beaconName`: its description (the venue's name for the room) or else its
    /// name, and its last contact, the heartbeat or else the registration.
    package static func box(beaconName: String, description: String?, heartbeatMs: Int64?, createdMs: Int64) -> Box {
        let name = description.flatMap { $0.isEmpty ? nil : $0 } ?? beaconName
        return (name, max(heartbeatMs ?? createdMs, createdMs))
    }

    /// An instance's follower counts older than this are not counted (it refreshes every 10 s).
    package static let followersFreshMs: Int64 = 30_000
    /// Rows of instances gone quiet (stopped or crashed) this long are removed.
    package static let followersKeptMs: Int64 = 5 * 60_000

    /// A new sight-code salt: every code shown under the old one stops working.
    package static func newSalt() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

extension Show {
    /// A show starting at `page` at `nowMs`.
    package init(project: String, beaconName: String, deckID: String, page: Int, nowMs: Int64) {
        self.init(project: project, beaconName: beaconName, deckID: deckID, page: page, shown: ShownPages(),
                  startedMs: nowMs, updatedMs: nowMs, counts: [:], sightCode: .fresh())
    }
}
