#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// How a phone gets into the room, as the listener page does (web/page/listener-show.js):
/// - `ear`: it hears the box: `getforobserved` with the public key and the EID it heard gives a
///   watch token; the show and its events are read with the public key and that token;
/// - `heard`: it hears the box and takes a pass for it (`POST /v1/presence` with the EID);
/// - `sight`: it hears nothing and uses the code on the presenter's screen: every other one opens
///   the QR code's address (`GET /j/CODE`, a redirect carrying a pass), the rest type it
///   (`POST /v1/presence` with the code).
enum JoinKind: String, CaseIterable, Sendable {
    case ear, heard, sight
}

/// What a phone holds once it is in: the key it reads with (the public key or a pass), the watch
/// token (`ear`), its phone id, and its proof of presence for reactions.
struct PhoneGrant: Sendable {
    var index: Int
    var kind: JoinKind
    var key: String
    var token: String?
    var phoneID: String

    /// `key=…[&token=…]&phone=…`: what the page puts on an event stream's and an image's address.
    var query: String {
        "key=\(queryEscaped(key))" + (token.map { "&token=\(queryEscaped($0))" } ?? "") + "&phone=\(queryEscaped(phoneID))"
    }

    /// The proof a reaction carries: the EID heard now, or the pass (a phone in by sight).
    func observed(in room: Room) -> Observed {
        kind == .sight ? Observed(type: "NEARCAST_PASS", id: key) : Observed(type: "EDDYSTONE_EID", id: room.eidNow())
    }
}

/// A proof of presence or a heard token, in the API's shape.
struct Observed: Codable, Sendable {
    var type: String
    var id: String
}

/// A step of a phone's life that did not go as the page needs: already recorded (the report counts
/// refusals by step and status, lost connections by reason); the phone stops there.
struct PhoneStopped: Error {}

/// One phone's life: in (its `JoinKind`), its id earned (the challenge's work done here), the show
/// read, its events followed; later, for some, reactions.
struct PhoneLife: Sendable {
    let index: Int
    let kind: JoinKind
    let bench: BenchContext

    private var room: Room { bench.room }
    private var recorder: Recorder { bench.recorder }

    /// Joins and opens the event stream; the stream's events are recorded as they come. Nil when
    /// a step failed (recorded).
    func join() async -> PhoneGrant? {
        recorder.phone(index) { $0.arrivedNs = Clocks.monotonicNs() }
        let connection: HTTPConnection
        do {
            connection = try await HTTPConnection.connect(to: bench.entry(of: index), from: bench.source(of: index), group: bench.group)
        } catch {
            recorder.connectionFailed("connect", ConnectionFailure.from(error), phone: index)
            return nil
        }
        // The page's fetches go on a keep-alive connection of their own; it is closed once the
        // phone follows (a browser keeps it 75 s or so: a hub's idle timeout), so the hubs hold
        // one connection per phone, its stream.
        defer { connection.close() }
        do {
            var grant = try await enter(on: connection)
            try await readShow(grant, on: connection)
            grant.phoneID = try await earnID(grant, on: connection)
            await follow(grant)
            return grant
        } catch {
            return nil
        }
    }

    private func enter(on connection: HTTPConnection) async throws -> PhoneGrant {
        switch kind {
        case .ear:
            struct Answer: Decodable {
                struct Beacon: Decodable { var hasShow: Bool?; var watchToken: String? }
                var beacons: [Beacon]?
            }
            struct Observation: Encodable { var advertisedId: Observed; var timestampMs: String }
            struct Body: Encodable { var observations: [Observation] }
            let body = Body(observations: [Observation(advertisedId: Observed(type: "EDDYSTONE_EID", id: room.eidNow()),
                                                       timestampMs: String(Int64(Clocks.wallMs())))])
            let answer: Answer = try await call("getforobserved", .POST, "/v1beta1/beaconinfo:getforobserved", key: room.publicKey,
                                                body: body, on: connection)
            guard let token = answer.beacons?.first?.watchToken, answer.beacons?.first?.hasShow == true else {
                recorder.refused("getforobserved (no show)", status: 200, phone: index)
                throw PhoneStopped()
            }
            return PhoneGrant(index: index, kind: kind, key: room.publicKey, token: token, phoneID: "")
        case .heard:
            struct Body: Encodable { var observed: Observed }
            let answer: PassAnswer = try await call("presence by hearing", .POST, "/v1/presence", key: room.publicKey,
                                                    body: Body(observed: Observed(type: "EDDYSTONE_EID", id: room.eidNow())), on: connection)
            return PhoneGrant(index: index, kind: kind, key: answer.pass, token: nil, phoneID: "")
        case .sight:
            guard let code = bench.code.withLockedValue({ $0 }) else {
                recorder.refused("the code (the presenter's screen shows none)", status: 0, phone: index)
                throw PhoneStopped()
            }
            if index % 2 == 0 {
                let answer = try await send("GET /j/CODE", .GET, "/j/\(code)", on: connection)
                let location = answer.headers.first(name: "Location") ?? ""
                guard answer.status == 302, let pass = Self.fragmentValue("pass", in: location) else {
                    recorder.refused("GET /j/CODE", status: answer.status, phone: index)
                    throw PhoneStopped()
                }
                return PhoneGrant(index: index, kind: kind, key: pass, token: nil, phoneID: "")
            }
            struct Body: Encodable { var code: String }
            let answer: PassAnswer = try await call("presence by code", .POST, "/v1/presence", key: nil, body: Body(code: code), on: connection)
            return PhoneGrant(index: index, kind: kind, key: answer.pass, token: nil, phoneID: "")
        }
    }

    private struct PassAnswer: Decodable { var pass: String }

    private func readShow(_ grant: PhoneGrant, on connection: HTTPConnection) async throws {
        let query = "key=\(queryEscaped(grant.key))" + (grant.token.map { "&token=\(queryEscaped($0))" } ?? "")
        let answer = try await send("GET the show", .GET, "/v1/shows/\(room.beacon)?\(query)", on: connection)
        guard answer.status == 200 else {
            recorder.refused("GET the show", status: answer.status, message: APIErrorMessage.of(answer), phone: index)
            throw PhoneStopped()
        }
    }

    /// The phone's id: a challenge, its work, and the id for it with the proof of presence.
    private func earnID(_ grant: PhoneGrant, on connection: HTTPConnection) async throws -> String {
        struct Challenge: Decodable { var challenge: String; var bits: Int }
        struct Body: Encodable { var challenge: String; var nonce: String; var observed: Observed }
        struct Answer: Decodable { var phone: String }
        let challenge: Challenge = try await call("GET challenge", .GET, "/v1/phones/challenge", key: grant.key, on: connection)
        let nonce = ProofOfWork.solve(challenge: challenge.challenge, bits: challenge.bits)
        let answer: Answer = try await call("POST phones", .POST, "/v1/phones", key: grant.key,
                                            body: Body(challenge: challenge.challenge, nonce: nonce, observed: grant.observed(in: room)),
                                            on: connection)
        return answer.phone
    }

    /// Opens the show's event stream as the page's EventSource does (`?key=…&token=…&phone=…`).
    /// False when the connection could not be made (recorded).
    @discardableResult
    func follow(_ grant: PhoneGrant) async -> Bool {
        let listener = PhoneStreamListener(grant: grant, bench: bench)
        do {
            let channel = try await EventStream.open("/v1/shows/\(room.beacon)/events?\(grant.query)", at: bench.entry(of: index),
                                                     from: bench.source(of: index), group: bench.group, listener: listener)
            bench.streams.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
            channel.closeFuture.whenComplete { _ in
                _ = bench.streams.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
            }
            return true
        } catch {
            recorder.connectionFailed("the show's events", ConnectionFailure.from(error), phone: index)
            return false
        }
    }

    /// A request whose JSON answer is decoded; anything but a 2xx is recorded and stops the phone.
    private func call<Answer: Decodable>(_ step: String, _ method: HTTPMethod, _ path: String, key: String?,
                                         body: (some Encodable)? = Optional<String>.none, on connection: HTTPConnection) async throws -> Answer {
        var headers: [(String, String)] = []
        if let key { headers.append(("X-Api-Key", key)) }
        let bytes = try body.map { ByteBuffer(bytes: try JSONEncoder().encode($0)) }
        let answer = try await send(step, method, path, headers: headers, body: bytes, on: connection)
        guard (200..<300).contains(answer.status) else {
            recorder.refused(step, status: answer.status, message: APIErrorMessage.of(answer), phone: index)
            throw PhoneStopped()
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(buffer: answer.body))
        } catch {
            recorder.refused("\(step) (an answer not understood)", status: answer.status, phone: index)
            throw PhoneStopped()
        }
    }

    private func send(_ step: String, _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: ByteBuffer? = nil,
                      on connection: HTTPConnection) async throws -> HTTPAnswer {
        do {
            return try await connection.send(method, path, headers: headers, body: body)
        } catch {
            recorder.connectionFailed(step, ConnectionFailure.from(error), phone: index)
            throw PhoneStopped()
        }
    }

    /// `name`'s value in a URL's fragment (`/listen#pass=…&beacon=…`), percent-decoded.
    static func fragmentValue(_ name: String, in location: String) -> String? {
        guard let hash = location.firstIndex(of: "#") else { return nil }
        for pair in location[location.index(after: hash)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return percentDecoded(String(parts[1])) }
        }
        return nil
    }
}

/// The message of the API's error shape (`{"error": {"message"}}`), if the body is one.
enum APIErrorMessage {
    static func of(_ answer: HTTPAnswer) -> String? {
        struct Body: Decodable { struct Error: Decodable { var message: String }; var error: Error }
        return (try? JSONDecoder().decode(Body.self, from: Data(buffer: answer.body)))?.error.message
    }
}
