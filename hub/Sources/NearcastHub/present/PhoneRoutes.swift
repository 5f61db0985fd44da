import Foundation
import HTTPTypes
import Hummingbird

/// Phone ids (`PhoneIDs`): `GET /v1/phones/challenge` gives the work to do, `POST /v1/phones`
/// trades the work and a proof of presence (a heard EID or a pass) for an id of the show's.
enum PhoneRoutes {
    static func add(readers: RouterGroup<HubRequestContext>, _ hub: HubServices) {
        readers.get("/v1/phones/challenge") { _, context in
            let access = try context.caller()
            let (text, expires) = hub.phoneIDs.challenge(project: access.project, nowMs: hub.clock.nowMs())
            return PhoneChallengeJSON(challenge: text, bits: hub.limiter.settings.phoneIdWorkBits,
                                      expiresTime: HubClock.timestamp(ms: expires), expiresMs: expires)
        }
        readers.post("/v1/phones") { request, context in
            let access = try context.caller()
            let body = try await request.decode(as: PhoneRequest.self, context: context)
            try hub.limiter.admitPhoneID(from: context.remoteAddress)
            let now = hub.clock.nowMs()
            let beaconName = try await ReactionRoutes.proof(body.observed, access: access, nowMs: now, hub: hub)
            guard let show = try await hub.showCache.show(ShowFeed.Key(project: access.project, beaconName: beaconName), nowMs: now) else {
                throw APIError(.forbidden, "\(beaconName) has no show running, so it gives no phone ids")
            }
            let proof = body.observed.type == "NEARCAST_PASS" ? "seen" : "heard"
            do throws(PhoneIDs.Refusal) {
                let (text, phone) = try hub.phoneIDs.id(challenge: body.challenge, nonce: body.nonce, bits: hub.limiter.settings.phoneIdWorkBits,
                                                        project: access.project, beaconName: beaconName, showStartedMs: show.startedMs,
                                                        proof: proof, nowMs: now)
                return PhoneJSON(phone: text, beaconName: beaconName, proof: proof,
                                 expiresTime: HubClock.timestamp(ms: phone.expiresMs), expiresMs: phone.expiresMs)
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

    /// The phone a reaction names, checked: a genuine, current id of this project's show on
    /// `beaconName` (the one its proof is for).
    static func phone(_ text: String?, project: String, beaconName: String, showStartedMs: Int64, hub: HubServices) throws -> PhoneIDs.Phone {
        guard let text, let phone = hub.phoneIDs.verify(id: text, nowMs: hub.clock.nowMs()) else {
            throw APIError(.forbidden, "phone: not an id this hub gave, or expired: get one with POST /v1/phones", field: "phone")
        }
        guard phone.project == project, phone.beaconName == beaconName, phone.showStartedMs == showStartedMs else {
            throw APIError(.forbidden, "phone: the id is for another show: get one for this one with POST /v1/phones", field: "phone")
        }
        return phone
    }
}
