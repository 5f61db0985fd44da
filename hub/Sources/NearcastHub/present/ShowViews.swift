import Foundation
import Logging
import NIOCore

/// A show as the API shows it, to followers and to presenters, and its fan-out to this
/// instance's show streams.
struct ShowViews: Sendable {
    let shows: any ShowRepository
    let decks: any DeckRepository
    let choices: any ReactionChoicesRepository
    /// How a failed read reads in the log.
    let storage: any StorageHealth
    let clock: HubClock
    let logger: Logger
    let presence: Presence
    /// The passes given for each show's code lately (`VenueRepository`).
    let venue: any VenueRepository
    /// When a phone last resolved each box (`BoxReach`).
    let heardBoxes: HeardBoxes
    let showFeed: ShowFeed
    let followerReports: FollowerReports
    /// The room a show's box is in, for the phones (`RoomDirectory`).
    let rooms: RoomDirectory

    /// The show's JSON; the presenter's fields only when `presenter` (the secret key).
    func json(_ show: Show, presenter: Bool) async throws -> ShowJSON {
        let deck = try await decks.get(project: show.project, deckID: show.deckID)
        let choices = try await self.choices.get(project: show.project)
        let room = try await rooms.room(of: BeaconRef(show), nowMs: clock.nowMs())
        let audience = ShowJSON.Audience(beaconName: show.beaconName, deck: show.deckID, title: Self.title(deck, room: room),
                                         pages: deck.pages, width: deck.width, height: deck.height, page: show.page,
                                         shownUpTo: show.shownUpTo, shown: show.openPages.pages,
                                         startedTime: HubClock.timestamp(ms: show.startedMs), startedMs: show.startedMs,
                                         reactions: choices.json, room: room)
        guard presenter else { return ShowJSON(audience: audience) }
        var json = ShowJSON.Presenter()   // the presenter's fields
        json.followers = try await shows.followers(BeaconRef(project: show.project, beaconName: show.beaconName))
            + (try await localFollowersNotYetRecorded(show))
        json.counts = show.counts
        let now = clock.nowMs()
        if let beacon = try await shows.liveBeacon(BeaconRef(project: show.project, beaconName: show.beaconName)) {
            if let current = presence.codes(for: beacon, nowMs: now).first(where: { $0.minutesBehind == 0 }) {
                json.code = current.code
                json.codeExpiresMs = current.expiresMs
                json.codeExpiresTime = HubClock.timestamp(ms: current.expiresMs)
                json.joinPath = "/j/" + current.code
            }
            json.codeJoining = beacon.codeJoining
            json.codeMaxShare = beacon.codeShare
            json.codePasses = try await venue.codePasses(BeaconRef(show), nowMs: now)
            json.rotationPeriodSeconds = 1 << beacon.exponent
        }
        let box = try await shows.box(BeaconRef(project: show.project, beaconName: show.beaconName))
        let name = box?.name ?? show.beaconName
        let resolvedMs = heardBoxes.lastHeardMs(BeaconRef(project: show.project, beaconName: show.beaconName))
        json.box = ShowBoxJSON(name: name, lastSeenTime: box?.lastSeenMs.map(HubClock.timestamp(ms:)),
                               lastResolvedTime: resolvedMs.map(HubClock.timestamp(ms:)))
        let reach = BoxReach.of(boxName: name, lastSeenMs: box?.lastSeenMs, lastResolvedMs: resolvedMs,
                                followers: json.followers ?? 0, codeJoining: json.codeJoining ?? true,
                                startedMs: show.startedMs, nowMs: now)
        json.reach = ShowReachJSON(state: reach.state.rawValue, message: reach.message)
        return ShowJSON(audience: audience, presenter: json)
    }

    /// Followers on this instance that its last report to the database does not include yet
    /// (a phone that joined in the last few seconds), so a presenter sees them at once.
    private func localFollowersNotYetRecorded(_ show: Show) async throws -> Int {
        let key = BeaconRef(show)
        let local = showFeed.followersByShow()[key] ?? 0
        let recorded = await followerReports.lastReported(key)
        return max(0, local - recorded)
    }

    /// Reads a show and sends it to this instance's streams (`ShowFeed`'s refresh).
    func send(_ key: BeaconRef) async {
        do {
            guard let show = try await shows.get(key) else {
                showFeed.end(key)
                return
            }
            showFeed.revokePasses(key, show: show)
            let follower = try await json(show, presenter: false)
            let presenter = try await json(show, presenter: true)
            showFeed.send(key, follower: ShowFeed.event("show", json: try JSONText.encode(follower)),
                          presenter: ShowFeed.event("show", json: try JSONText.encode(presenter)))
        } catch let error as APIError where error.status == .notFound {
            showFeed.end(key)   // its deck was deleted
        } catch {
            logger.warning("shows: reading \(key.beaconName)'s show failed: \(storage.describe(error))")
        }
    }

    /// The show's title as a phone shows it: the deck's, or for the day's title card the talk's
    /// ("Next: TITLE" before it starts).
    /// A show's title: its deck's, or for a title card the talk the card is of ("Next: " before
    /// it starts). Read from the card, not the room's clock: between a talk's minute and the day
    /// runner's switch the clock names the next talk while the old card is still up.
    static func title(_ deck: Deck, room: ShowRoomJSON?) -> String {
        guard deck.title.hasPrefix(DayRunner.cardTitlePrefix) else { return deck.title }
        var parts = deck.title.dropFirst(DayRunner.cardTitlePrefix.count).components(separatedBy: " \u{B7} ")
        guard parts.count >= 3 else { return deck.title }
        let label = parts.removeFirst()
        parts.removeLast()   // the card's hash
        let shown = parts.joined(separator: " \u{B7} ")
        // The card holds at most 120 characters of the title; the schedule has it whole.
        let whole = [room?.now, room?.next].compactMap { $0 }.first { String($0.title.prefix(120)) == shown }?.title ?? shown
        return label == "Next" ? "Next: " + whole : whole
    }
}
