import Foundation
import HTTPTypes
import Hummingbird

/// Phone ids (`PhoneIDs`): `GET /v1/phones/challenge` gives the work to do, `POST /v1/phones`
/// trades the work and a proof of presence (a heard EID or a pass) for an id of the show's.
struct PhoneController: Sendable {
    let phoneIDs: PhoneIDs
    let showCache: ShowCache
    /// Told of every id given for a heard EID, by show: the code's cap is a share of them
    /// (`VenueRepository`).
    let venue: any VenueRepository
    let proof: RoomProof
    let limiter: HubLimiter
    let clock: HubClock
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read)
        readers.get("/v1/phones/challenge") { _, context in
            let access = try context.caller()
            let (text, expires) = phoneIDs.challenge(project: access.project, nowMs: clock.nowMs())
            return PhoneChallengeJSON(challenge: text, bits: limiter.settings.guessing.phoneIdWorkBits,
                                      expiresTime: HubClock.timestamp(ms: expires), expiresMs: expires)
        }
        readers.post("/v1/phones") { request, context in
            let access = try context.caller()
            let body = try await request.decode(as: PhoneRequest.self, context: context)
            try limiter.admitPhoneID(from: context.remoteAddress)
            let now = clock.nowMs()
            let beaconName = try await proof.beacon(proved: body.observed, access: access, nowMs: now)
            guard let show = try await showCache.show(BeaconRef(project: access.project, beaconName: beaconName), nowMs: now) else {
                throw APIError(.forbidden, "\(beaconName) has no show running, so it gives no phone ids")
            }
            let proof = body.observed.type == "NEARCAST_PASS" ? "seen" : "heard"
            let (text, phone) = try earn(body, access: access, beaconName: beaconName, show: show, proof: proof, nowMs: now)
            // Counted once given: an attempt that earned nothing spends no budget.
            limiter.spendPhoneID(from: context.remoteAddress)
            if proof == "heard" {
                try await venue.recordHeardPhone(BeaconRef(project: access.project, beaconName: beaconName), startedMs: show.startedMs,
                                                 identity: phone.identity, nowMs: now)
            }
            return PhoneJSON(phone: text, beaconName: beaconName, proof: proof,
                             expiresTime: HubClock.timestamp(ms: phone.expiresMs), expiresMs: phone.expiresMs)
        }
        return routes
    }

    /// The id `body`'s solved challenge earns, or the refusal as the API's error.
    private func earn(_ body: PhoneRequest, access: Access, beaconName: String, show: Show, proof: String,
                      nowMs: Int64) throws(APIError) -> (text: String, phone: PhoneIDs.Phone) {
        do throws(PhoneIDs.Refusal) {
            return try phoneIDs.id(challenge: body.challenge, nonce: body.nonce, bits: limiter.settings.guessing.phoneIdWorkBits,
                                   project: access.project, beaconName: beaconName, showStartedMs: show.startedMs,
                                   proof: proof, nowMs: nowMs)
        } catch {
            switch error {
            case .notAChallenge: throw APIError.invalid("challenge", "is not a challenge of this hub's (GET /v1/phones/challenge)")
            case .otherProject: throw APIError(.forbidden, "challenge: it was given to another project's key", field: "challenge")
            case .expired: throw APIError(.forbidden, "challenge: it has expired (5 minutes): ask for another", field: "challenge")
            case .notSolved(let bits):
                throw APIError(.forbidden, "nonce: SHA-256(challenge + \"\\n\" + nonce) does not start with \(bits) zero bits", field: "nonce")
            }
        }
    }
}
