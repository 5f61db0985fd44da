import HTTPTypes
import Hummingbird
import NIOCore

/// Joining by sight: `POST /v1/presence` trades the code on the presenter's screen for a pass,
/// and `GET /j/CODE` (the QR code's address) sends the phone to the listener page with one.
struct PresenceController: Sendable {
    let shows: any ShowRepository
    let showCache: ShowCache
    let presence: Presence
    /// The passes given for each show's code lately, and the phones that earned an id by
    /// hearing each show, which the cap is a share of: the venue's.
    let venue: any VenueRepository
    let proof: RoomProof
    let limiter: HubLimiter
    let clock: HubClock
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let open = RouteCollection(context: HubRequestContext.self)
        open.post("/v1/presence") { request, context in
            let body = try await request.decode(as: PresenceRequest.self, context: context)
            let pass: Presence.Pass, proof: String
            switch (body.code, body.observed) {
            case (let code?, nil):
                guard let found = try await passFor(code: code, address: context.remoteAddress) else {
                    throw APIError(.forbidden, "code: '\(code.prefix(12))' is not the code on any screen now (it changes every few minutes: type the one shown)",
                                   field: "code")
                }
                (pass, proof) = (found, "seen")
            case (nil, let observed?):
                (pass, proof) = (try await passFor(heard: observed, request: request, context: context), "heard")
            default:
                throw APIError.invalid("code", "send either the code on the screen or the EID the phone heard (observed), not both")
            }
            return PresenceJSON(pass: presence.pass(pass), beaconName: pass.beaconName,
                                expiresTime: HubClock.timestamp(ms: pass.expiresMs), expiresMs: pass.expiresMs, proof: proof)
        }
        open.get("/j/:code") { _, context in
            let code = context.parameters.get("code") ?? ""
            let found: Presence.Pass?
            do {
                found = try await passFor(code: code, address: context.remoteAddress)
            } catch let refusal as APIError {
                // A phone that scanned the QR code gets a page saying why, not the API's JSON.
                var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
                if let wait = refusal.retryAfterSeconds { headers[.retryAfter] = String(wait) }
                return Response(status: refusal.status, headers: headers,
                                body: .init(byteBuffer: ByteBuffer(string: Self.refusedPage(refusal.message))))
            }
            guard let pass = found else {
                return Response(status: .notFound, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(string: Self.expiredPage(code))))
            }
            let beacon = pass.beaconName.replacingOccurrences(of: "beacons/", with: "")
            // The pass rides in the fragment, which the browser never sends to a server.
            return Response(status: .found, headers: [.location: "/listen#pass=\(presence.pass(pass))&beacon=\(beacon)",
                                                      .cacheControl: "no-store"])
        }
        return open
    }

    /// The pass hearing earns: a phone holding a pass (it joined by the QR code) or the public key
    /// that heard the current EID of a box with a show gets a fresh pass for it, so a phone is
    /// never dropped while it hears the room. Only a heard EID renews a pass: a pass alone never
    /// buys another.
    func passFor(heard observed: AdvertisedID, request: Request, context: HubRequestContext) async throws -> Presence.Pass {
        let access = try await keys.access(request, context: context, manage: false)
        try limiter.admitRequest(access)
        try limiter.admitHeardPass(from: context.remoteAddress)
        guard observed.type == "EDDYSTONE_EID" else {
            throw APIError.invalid("observed.type", "'\(observed.type)' must be EDDYSTONE_EID: a pass is renewed by hearing the box")
        }
        let now = clock.nowMs()
        let beaconName = try await proof.beacon(proved: observed, access: access, nowMs: now)
        guard let show = try await showCache.show(BeaconRef(project: access.project, beaconName: beaconName), nowMs: now) else {
            throw APIError(.forbidden, "\(beaconName) has no show running, so hearing it earns no pass")
        }
        return Presence.Pass(project: access.project, beaconName: beaconName, expiresMs: now + Presence.passMilliseconds,
                             show: .init(show, proof: .heard))
    }

    /// The pass a code earns: the show whose screen shows that code now (or in the minute
    /// before), unless the presenter turned joining by code off or the show has given as many
    /// passes for its code as its cap allows. Codes that match nothing spend the address's and
    /// the hub's budget of misses (`HubLimiter.admitCodeAttempt`).
    func passFor(code typed: String, address: String?) async throws -> Presence.Pass? {
        try limiter.admitCodeAttempt(from: address)
        let code = Presence.normalise(typed)
        let now = clock.nowMs()
        guard code.count == Presence.codeLength,
              let beacon = try await shows.liveBeacons().first(where: { beacon in
                  presence.codes(for: beacon, nowMs: now).contains { $0.code == code }
              })
        else {
            limiter.spendFailedCode(from: address)
            return nil
        }
        let key = BeaconRef(project: beacon.project, beaconName: beacon.beaconName)
        // The show the code is of, read afresh: the pass names its start and its code's salt.
        guard let show = try await shows.get(BeaconRef(project: beacon.project, beaconName: beacon.beaconName)),
              show.sightCode.salt == beacon.codeSalt, show.sightCode.joining else {
            limiter.spendFailedCode(from: address)
            return nil
        }
        // A share of the phones that heard the box and earned an id (each a challenge's work),
        // not of the open streams, which one pass can open by the hundred.
        let limit = CodePassLedger.limit(followers: try await venue.heardPhones(key, startedMs: show.startedMs), share: beacon.codeShare)
        guard try await venue.admitCodePass(key, limit: limit, nowMs: now) else {
            throw APIError(.forbidden, "code: this presentation has let in as many phones by its code as the presenter allows "
                           + "(\(limit) in 10 minutes, \(beacon.codeShare) % of the phones that hear the box): a phone that hears the room's box joins by ear",
                           field: "code")
        }
        return Presence.Pass(project: beacon.project, beaconName: beacon.beaconName, expiresMs: now + Presence.passMilliseconds,
                             show: .init(show, proof: .seen))
    }

    /// The page a refused QR code opens (joining by code capped or switched off, too many guesses).
    private static func refusedPage(_ message: String) -> String {
        let text = message.hasPrefix("code: ") ? String(message.dropFirst(6)) : message
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return """
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Nearcast: not now</title><link rel="stylesheet" href="\(NoticePage.stylePath)">
            <h1>This code cannot let you in now</h1>
            <p>\(escaped)</p>
            """
    }

    private static func expiredPage(_ code: String) -> String {
        let shown = String(code.prefix(12).filter { $0.isLetter || $0.isNumber })
        return """
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Nearcast: code not current</title><link rel="stylesheet" href="\(NoticePage.stylePath)">
            <h1>This code is not on a screen now</h1>
            <p>The code <b>\(shown)</b> is old or mistyped: codes change every few minutes. Scan the QR code on the
            presenter's screen again, or type the address shown under it.</p>
            """
    }
}
