import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NIOCore

/// Reactions: the project's choices (read by any key, set by the secret key), their images, and
/// `POST /v1/reactions`, which takes a reaction only with proof that the phone is in the room.
enum ReactionRoutes {
    static func add(open: Router<HubRequestContext>, managers: RouterGroup<HubRequestContext>,
                    readers: RouterGroup<HubRequestContext>, _ hub: HubServices) {
        let accepted = Counter(label: "nearcast_hub_reactions_accepted_total")
        let refused = Counter(label: "nearcast_hub_reactions_refused_total")
        readers.get("/v1/reactions/choices") { _, context in
            try await hub.choices.get(project: try context.caller().project).json
        }
        managers.put("/v1/reactions/choices") { request, context in
            let project = try context.caller().project
            let choices = try ReactionChoices.validated(try await request.decode(as: ReactionChoicesUpdate.self, context: context))
            try await hub.choices.set(project: project, choices)
            await hub.showCache.forget(project: project)
            return choices.json
        }
        readers.get("/v1/reactions/images/:name") { _, context in
            let name = context.parameters.get("name") ?? ""
            guard let png = try await hub.choices.get(project: try context.caller().project).images[name] else {
                throw APIError.notFound("reaction image \(name)")
            }
            return Response(status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, max-age=300"],
                            body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        readers.post("/v1/reactions") { request, context in
            do {
                try await react(request, context, hub)
                accepted.increment()
                return EditedResponse(status: .accepted, response: EmptyJSON())
            } catch {
                refused.increment()
                throw error
            }
        }
    }

    private static func react(_ request: Request, _ context: HubRequestContext, _ hub: HubServices) async throws {
        let access = try context.caller()
        let body = try await request.decode(as: ReactionRequest.self, context: context)
        let now = hub.clock.nowMs()
        let choices = try await hub.showCache.choices(project: access.project, nowMs: now)
        guard choices.enabled else { throw APIError(.forbidden, "reactions are switched off for this project") }
        guard choices.offers(body.reaction) else {
            throw APIError.invalid("reaction", "'\(body.reaction.prefix(40))' is not one of this project's reactions (GET /v1/reactions/choices)")
        }
        let beaconName = try await proof(body.observed, access: access, nowMs: now, hub: hub)
        let key = ShowFeed.Key(project: access.project, beaconName: beaconName)
        guard let show = try await hub.showCache.show(key, nowMs: now) else {
            throw APIError(.forbidden, "\(beaconName) has no show running, so it takes no reactions")
        }
        // One phone, one id the hub gave it (for work and a proof): the rates key on it.
        let phone = body.phone ?? ""
        _ = try PhoneRoutes.phone(body.phone, project: access.project, beaconName: beaconName, showStartedMs: show.startedMs, hub: hub)
        if let wait = await hub.reactionDesk.admit(body.reaction, to: key, phone: phone, nowMs: now) {
            throw APIError.tooMany("too many reactions: wait \(wait) s", retryAfter: wait)
        }
    }

    /// The beacon whose room the phone proved it is in: a heard EID of its current rotation
    /// period or the one before, or a pass for the code on its screen.
    static func proof(_ observed: AdvertisedID, access: ProjectStore.Access, nowMs: Int64, hub: HubServices) async throws -> String {
        if observed.type == "NEARCAST_PASS" {
            guard let pass = hub.presence.verify(pass: observed.id, nowMs: nowMs), pass.project == access.project else {
                throw APIError(.forbidden, "observed.id: the pass is not valid or has expired: scan the code on the presenter's screen again",
                               field: "observed.id")
            }
            return pass.beaconName
        }
        guard observed.type == "EDDYSTONE_EID" else {
            throw APIError.invalid("observed.type", "'\(observed.type)' must be EDDYSTONE_EID (the EID the phone heard) or NEARCAST_PASS")
        }
        guard let found = try await HeardToken.resolve(observed, field: "observed", project: access.project, nowMs: nowMs, hub: hub) else {
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
        hub.heardBoxes.heard(project: access.project, beaconName: found.beaconName, nowMs: nowMs)
        return found.beaconName
    }
}
