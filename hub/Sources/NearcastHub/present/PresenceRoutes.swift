import HTTPTypes
import Hummingbird
import NIOCore

/// Joining by sight: `POST /v1/presence` trades the code on the presenter's screen for a pass,
/// and `GET /j/CODE` (the QR code's address) sends the phone to the listener page with one.
enum PresenceRoutes {
    static func add(open: Router<HubRequestContext>, _ hub: HubServices) {
        open.post("/v1/presence") { request, context in
            let body = try await request.decode(as: PresenceRequest.self, context: context)
            guard let pass = try await passFor(code: body.code, hub: hub) else {
                throw APIError(.forbidden, "code: '\(body.code.prefix(12))' is not the code on any screen now (it changes every few minutes: type the one shown)",
                               field: "code")
            }
            return PresenceJSON(pass: hub.presence.pass(pass), beaconName: pass.beaconName,
                                expiresTime: HubClock.timestamp(ms: pass.expiresMs), expiresMs: pass.expiresMs)
        }
        open.get("/j/:code") { _, context in
            let code = context.parameters.get("code") ?? ""
            guard let pass = try await passFor(code: code, hub: hub) else {
                return Response(status: .notFound, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(string: expiredPage(code))))
            }
            let beacon = pass.beaconName.replacingOccurrences(of: "beacons/", with: "")
            // The pass rides in the fragment, which the browser never sends to a server.
            return Response(status: .found, headers: [.location: "/listen#pass=\(hub.presence.pass(pass))&beacon=\(beacon)",
                                                      .cacheControl: "no-store"])
        }
    }

    /// The pass a code earns: the show whose beacon shows that code now (or in the period before).
    static func passFor(code typed: String, hub: HubServices) async throws -> Presence.Pass? {
        let code = Presence.normalise(typed)
        guard code.count == Presence.codeLength else { return nil }
        let now = hub.clock.nowMs()
        for beacon in try await hub.shows.liveBeacons() {
            if try hub.presence.codes(for: beacon, nowMs: now).contains(where: { $0.code == code }) {
                return Presence.Pass(project: beacon.project, beaconName: beacon.beaconName, expiresMs: now + Presence.passMilliseconds)
            }
        }
        return nil
    }

    private static func expiredPage(_ code: String) -> String {
        let shown = String(code.prefix(12).filter { $0.isLetter || $0.isNumber })
        return """
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Nearcast: code not current</title>
            <body style="font: 18px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem">
            <h1>This code is not on a screen now</h1>
            <p>The code <b>\(shown)</b> is old or mistyped: codes change every few minutes. Scan the QR code on the
            presenter's screen again, or type the address shown under it.</p>
            """
    }
}
