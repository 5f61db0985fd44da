import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore

/// Reactions: the project's choices (read by any key, set by the secret key), their images, and
/// `POST /v1/reactions`, which takes a reaction only with proof that the phone is in the room,
/// and counts a tap sent with a key (`Idempotency-Key`) once however often it comes.
struct ReactionController: Sendable {
    let choices: any ReactionChoicesRepository
    let showCache: ShowCache
    let reactionDesk: ReactionDesk
    let phoneIDs: PhoneIDs
    let proof: RoomProof
    let clock: HubClock
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read), managers = keys.group(routes, .manage)
        let accepted = Counter(label: "nearcast_hub_reactions_accepted_total")
        let refused = Counter(label: "nearcast_hub_reactions_refused_total")
        readers.get("/v1/reactions/choices") { _, context in
            try await choices.get(project: try context.caller().project).json
        }
        managers.put("/v1/reactions/choices") { request, context in
            let project = try context.caller().project
            let choices = try ReactionChoices.validated(try await request.decode(as: ReactionChoicesUpdate.self, context: context))
            try await self.choices.set(project: project, choices)
            showCache.forget(project: project)
            return choices.json
        }
        readers.get("/v1/reactions/images/:name") { _, context in
            let name = context.parameters.get("name") ?? ""
            guard let png = try await choices.get(project: try context.caller().project).images[name] else {
                throw APIError.notFound("reaction image \(name)")
            }
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, max-age=300"],
                            body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        readers.post("/v1/reactions") { request, context in
            do {
                try await react(request, context)
                accepted.increment()
                return EditedResponse(status: .accepted, response: EmptyJSON())
            } catch {
                refused.increment()
                throw error
            }
        }
        return routes
    }

    private func react(_ request: Request, _ context: HubRequestContext) async throws {
        let access = try context.caller()
        let tap = try RequestSupport.tap(of: request)
        let body = try await request.decode(as: ReactionRequest.self, context: context)
        let now = clock.nowMs()
        let choices = try await showCache.choices(project: access.project, nowMs: now)
        guard choices.enabled else { throw APIError(.forbidden, "reactions are switched off for this project") }
        guard choices.offers(body.reaction) else {
            throw APIError.invalid("reaction", "'\(body.reaction.prefix(40))' is not one of this project's reactions (GET /v1/reactions/choices)")
        }
        let beaconName = try await proof.beacon(proved: body.observed, access: access, nowMs: now)
        let key = BeaconRef(project: access.project, beaconName: beaconName)
        guard let show = try await showCache.show(key, nowMs: now) else {
            throw APIError(.forbidden, "\(beaconName) has no show running, so it takes no reactions")
        }
        // One phone, one id the hub gave it (for work and a proof): the rates key on its identity.
        let phone = try phoneIDs.check(body.phone, project: access.project, beaconName: beaconName, showStartedMs: show.startedMs, nowMs: now)
        let slide = ReactionTally.Slide(deckID: show.deckID, page: show.page)
        let (wait, batch) = await reactionDesk.take(body.reaction, to: key, on: slide, phone: phone.identity, tap: tap, address: context.remoteAddress,
                                                    nowMs: now)
        if let wait { throw APIError.tooMany("too many reactions: wait \(wait) s", retryAfter: wait) }
        // Answered once its batch is counted: a 202 is a reaction that a lost instance cannot lose.
        // A tap sent again with its key is answered 202 too: it was counted, once.
        guard await reactionDesk.counted(batch) else {
            throw APIError(.serviceUnavailable, "the reaction could not be counted now (the database did not answer): send it again")
        }
    }
}
