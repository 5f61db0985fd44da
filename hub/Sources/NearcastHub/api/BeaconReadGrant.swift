import Hummingbird

/// Who may read a beacon by its name (its attachment watch, its show, its show's page images):
/// the secret key always; a pass (from the code on the presenter's screen) its own beacon; the
/// public key only with the `watchToken` that getforobserved answered for that beacon in the
/// last ten minutes, in `?token=`. The public key is in every audience URL: without this, anyone
/// it reached could follow any box by name, for ever, from anywhere, having heard it once.
struct BeaconReadGrant: Sendable {
    let presence: Presence
    let clock: HubClock
    /// The shows a pass is checked against: a pass reads only while its show stands by it.
    let shows: ShowCache

    static let tokenParameter = "token"

    /// The token getforobserved hands out with a beacon it resolved: signed like a pass, but
    /// for reading only (it proves no presence: an EID up to an hour old resolves).
    func token(project: String, beaconName: String) -> String {
        presence.pass(.init(project: project, beaconName: beaconName,
                                expiresMs: clock.nowMs() + Presence.passMilliseconds), purpose: .watch)
    }

    /// Throws 403 unless `access` may read `beaconName` (see the type's comment); else when
    /// the grant read by expires (nil for the secret key): a stream opened with it ends then.
    @discardableResult
    func check(_ access: Access, beaconName: String, request: Request) async throws -> Int64? {
        switch access {
        case .manage:
            return nil
        case .pass(let pass):
            guard pass.beaconName == beaconName else {
                throw APIError(.forbidden, "this pass is for \(pass.beaconName), not \(beaconName)")
            }
            try await RoomProof.checkStillHeld(pass, shows: shows, nowMs: clock.nowMs())
            return pass.expiresMs
        case .read(let project):
            return try watchToken(request, project: project, beaconName: beaconName).expiresMs
        }
    }

    /// Throws 403 unless `access` may see the pages of deck `deckID`: the secret key any deck's;
    /// a pass, or the public key with a watch token, only the deck on the show of the beacon it
    /// reads (the page itself must have been shown too: the caller checks that). A deck id
    /// alone, which the public key and a glance at a phone give, opens nothing.
    func checkDeck(_ access: Access, deckID: String, request: Request) async throws {
        let beacon: BeaconRef
        switch access {
        case .manage:
            return
        case .pass(let pass):
            try await RoomProof.checkStillHeld(pass, shows: shows, nowMs: clock.nowMs())
            beacon = BeaconRef(project: pass.project, beaconName: pass.beaconName)
        case .read(let project):
            guard let token = request.uri.queryParameters[Substring(Self.tokenParameter)].map(String.init), !token.isEmpty else {
                throw APIError(.forbidden, "with the public API key, a deck's pages are seen only with the watchToken of the box "
                               + "showing it (beaconinfo:getforobserved answers it), in ?token=", field: Self.tokenParameter)
            }
            guard let grant = presence.verify(pass: token, nowMs: clock.nowMs(), purpose: .watch), grant.project == project else {
                throw APIError(.forbidden, "the token is not valid or has expired (tokens last \(Presence.passMilliseconds / 60_000) minutes): "
                               + "resolve the beacon again", field: Self.tokenParameter)
            }
            beacon = BeaconRef(project: project, beaconName: grant.beaconName)
        }
        guard try await shows.show(beacon, nowMs: clock.nowMs())?.deckID == deckID else {
            throw APIError(.forbidden, "deck \(deckID) is not on the show of \(beacon.beaconName), the box this grant reads")
        }
    }

    /// The watch token in `?token=` for `beaconName`, checked.
    private func watchToken(_ request: Request, project: String, beaconName: String) throws(APIError) -> Presence.Pass {
        guard let token = request.uri.queryParameters[Substring(Self.tokenParameter)].map(String.init), !token.isEmpty else {
            throw APIError(.forbidden, "with the public API key, \(beaconName) can be read only after resolving it: "
                           + "send the watchToken that beaconinfo:getforobserved answered in ?token=", field: Self.tokenParameter)
        }
        guard let pass = presence.verify(pass: token, nowMs: clock.nowMs(), purpose: .watch),
              pass.project == project, pass.beaconName == beaconName else {
            throw APIError(.forbidden, "the token is not valid for \(beaconName) or has expired (tokens last "
                           + "\(Presence.passMilliseconds / 60_000) minutes): resolve the beacon again", field: Self.tokenParameter)
        }
        return pass
    }
}
