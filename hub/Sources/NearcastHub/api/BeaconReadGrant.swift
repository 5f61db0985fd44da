import Hummingbird

/// Who may read a beacon by its name (its attachment watch, its show): the secret key always; a
/// pass (from the code on the presenter's screen) its own beacon; the public key only with the
/// `watchToken` that getforobserved answered for that beacon in the last ten minutes, in
/// `?token=`. The public key is in every audience URL: without this, anyone it reached could
/// follow any box by name, for ever, from anywhere, having heard it once.
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

    /// Throws 403 unless `access` may read `beaconName` (see the type's comment).
    func check(_ access: Access, beaconName: String, request: Request) async throws {
        switch access {
        case .manage:
            return
        case .pass(let pass):
            guard pass.beaconName == beaconName else {
                throw APIError(.forbidden, "this pass is for \(pass.beaconName), not \(beaconName)")
            }
            try await RoomProof.checkStillHeld(pass, shows: shows, nowMs: clock.nowMs())
        case .read(let project):
            guard let token = request.uri.queryParameters[Substring(Self.tokenParameter)].map(String.init), !token.isEmpty else {
                throw APIError(.forbidden, "with the public API key, \(beaconName) can be read only after resolving it: "
                               + "send the watchToken that beaconinfo:getforobserved answered in ?token=", field: Self.tokenParameter)
            }
            guard let pass = presence.verify(pass: token, nowMs: clock.nowMs(), purpose: .watch),
                  pass.project == project, pass.beaconName == beaconName else {
                throw APIError(.forbidden, "the token is not valid for \(beaconName) or has expired (tokens last "
                               + "\(Presence.passMilliseconds / 60_000) minutes): resolve the beacon again", field: Self.tokenParameter)
            }
        }
    }
}
