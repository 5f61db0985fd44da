/// Proof that a phone is in a box's room: an EID of the box it heard, current or one rotation
/// period old, or a pass for the code on the presenter's screen. Reactions, phone ids and
/// renewed passes all ask for it.
struct RoomProof: Sendable {
    let resolver: TokenResolver
    let presence: Presence
    /// The shows a pass is checked against (`Presence.ShowBinding`).
    let shows: ShowCache

    /// The beacon whose room the phone proved it is in: a heard EID of its current rotation
    /// period or the one before, or a pass for the code on its screen.
    func beacon(proved observed: AdvertisedID, access: Access, nowMs: Int64) async throws -> String {
        if observed.type == "NEARCAST_PASS" {
            guard let pass = presence.verify(pass: observed.id, nowMs: nowMs), pass.project == access.project else {
                throw APIError(.forbidden, "observed.id: the pass is not valid or has expired: scan the code on the presenter's screen again",
                               field: "observed.id")
            }
            try await Self.checkStillHeld(pass, shows: shows, nowMs: nowMs, field: "observed.id")
            return pass.beaconName
        }
        guard observed.type == "EDDYSTONE_EID" else {
            throw APIError.invalid("observed.type", "'\(observed.type)' must be EDDYSTONE_EID (the EID the phone heard) or NEARCAST_PASS")
        }
        guard let found = try await resolver.resolve(observed, field: "observed", project: access.project, nowMs: nowMs) else {
            throw APIError(.forbidden, "observed.id: the EID is not a current EID of any of this project's beacons", field: "observed.id")
        }
        guard found.epochsAhead <= 1 else {
            throw APIError(.forbidden,
                           "observed.id: the EID is \(found.epochsAhead) rotation periods ahead of the box's clock; only the current one and the one before prove presence",
                           field: "observed.id")
        }
        guard found.epochsBehind <= 1 else {
            throw APIError(.forbidden,
                           "observed.id: the EID is \(found.epochsBehind) rotation periods old; only the current one and the one before prove presence",
                           field: "observed.id")
        }
        resolver.heardBoxes.heard(BeaconRef(project: access.project, beaconName: found.beaconName), nowMs: nowMs)
        return found.beaconName
    }

    /// Throws 403 unless the beacon's show now still stands by `pass`: the show it was given
    /// for, under the code's current salt, and (for a pass from the code) with joining by code
    /// on. A phone in the room renews its pass by hearing the box or by the current code.
    static func checkStillHeld(_ pass: Presence.Pass, shows: ShowCache, nowMs: Int64, field: String? = nil) async throws {
        let show = try await shows.show(BeaconRef(project: pass.project, beaconName: pass.beaconName), nowMs: nowMs)
        guard let binding = pass.show, binding.holds(for: show) else {
            let why = if show == nil || show?.startedMs != pass.show?.startedMs {
                "it was given for a show that has ended"
            } else if pass.show?.proof == .seen && show?.sightCode.joining == false {
                "the presenter turned joining by code off"
            } else {
                "the presenter changed the code"
            }
            throw APIError(.forbidden, (field.map { "\($0): " } ?? "") + "the pass no longer holds: \(why); hear the room's box, "
                           + "or type the code on the screen now", field: field)
        }
    }
}
