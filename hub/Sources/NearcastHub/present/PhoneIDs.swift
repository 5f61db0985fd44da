import Crypto
import Foundation

/// Phone ids the hub gives, so a reaction counts as one phone's: a client that invented a new
/// `phone` per request was a thousand phones. An id is signed by the hub, bound to the
/// project, the show's beacon and its start, and to the proof it was issued against (a heard EID or
/// a pass), and expires; the per-phone reaction rate keys on it.
///
/// Each id costs work: the client asks for a challenge (signed, 5 minutes), finds a nonce such that
/// SHA-256(challenge + "\n" + nonce) starts with `bits` zero bits (2^bits tries on average: about
/// a second on a mid-range phone at the default, in a worker while the page already
/// listens), and trades it for the id. One challenge is one phone (the id's unique part is the
/// challenge's): a solution sent again gives the same id, and an id earned with the other proof
/// from the same challenge counts as the same phone (`Phone.identity`, what every count keys on).
/// An id has one spelling (`Presence.signedFields`).
struct PhoneIDs: Sendable {
    static let challengePrefix = "ncchal_"
    static let idPrefix = "ncph_"
    static let challengeMilliseconds: Int64 = 5 * 60_000
    /// An id lasts a talk and then some; a page asks for a new one when it is refused.
    static let idMilliseconds: Int64 = 4 * 3_600_000
    // Computed, as Presence.Purpose's are: a stored static Data is one allocation LeakSanitizer
    // reports as lost when the fuzzer's process ends.
    private static var challengeDomain: Data { Data("phone challenge\n".utf8) }
    private static var idDomain: Data { Data("phone id\n".utf8) }

    let presence: Presence

    /// What an id grants.
    struct Phone: Sendable, Equatable {
        /// The phone as every count knows it: its project and the unique part of the challenge it
        /// solved. The same whichever proof the id names, so one challenge is one phone.
        var identity: String
        var project: String
        var beaconName: String
        var showStartedMs: Int64
        /// `heard` or `seen`: the proof it was issued against.
        var proof: String
        var expiresMs: Int64
    }

    /// A new challenge for `project`.
    func challenge(project: String, nowMs: Int64) -> (text: String, expiresMs: Int64) {
        var generator = SystemRandomNumberGenerator()
        let unique = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16) }.joined(separator: "")
        let expires = nowMs + Self.challengeMilliseconds
        return (presence.sign([project, unique, String(expires)], prefix: Self.challengePrefix, domain: Self.challengeDomain), expires)
    }

    /// Why a solved challenge earns nothing.
    enum Refusal: Error, Equatable {
        case notAChallenge, otherProject, expired, notSolved(bits: Int)
    }

    /// The id a solved challenge earns for the show `beaconName` started at `showStartedMs`.
    func id(challenge: String, nonce: String, bits: Int, project: String, beaconName: String, showStartedMs: Int64, proof: String,
            nowMs: Int64) throws(Refusal) -> (text: String, phone: Phone) {
        guard let fields = presence.signedFields(challenge, prefix: Self.challengePrefix, domain: Self.challengeDomain),
              fields.count == 3, let expires = Int64(fields[2]) else { throw .notAChallenge }
        guard fields[0] == project else { throw .otherProject }
        guard expires > nowMs else { throw .expired }
        guard Self.leadingZeroBits(challenge: challenge, nonce: nonce) >= bits else { throw .notSolved(bits: bits) }
        // The challenge's expiry fixes the id's: the same solution sent again is the same id.
        let phone = Phone(identity: Self.identity(project: project, unique: fields[1]), project: project, beaconName: beaconName, showStartedMs: showStartedMs, proof: proof,
                          expiresMs: expires + Self.idMilliseconds)
        let text = presence.sign([project, beaconName, String(showStartedMs), proof, fields[1], String(phone.expiresMs)],
                                 prefix: Self.idPrefix, domain: Self.idDomain)
        return (text, phone)
    }

    /// The phone an id stands for, if it is genuine and not expired.
    func verify(id text: String, nowMs: Int64) -> Phone? {
        guard let fields = presence.signedFields(text, prefix: Self.idPrefix, domain: Self.idDomain), fields.count == 6,
              let started = Int64(fields[2]), let expires = Int64(fields[5]), expires > nowMs else { return nil }
        return Phone(identity: Self.identity(project: fields[0], unique: fields[4]), project: fields[0], beaconName: fields[1],
                     showStartedMs: started, proof: fields[3], expiresMs: expires)
    }

    private static func identity(project: String, unique: String) -> String { project + "\n" + unique }

    /// Leading zero bits of SHA-256(challenge + "\n" + nonce), the work's measure.
    static func leadingZeroBits(challenge: String, nonce: String) -> Int {
        guard nonce.utf8.count <= 64 else { return 0 }
        var bits = 0
        for byte in SHA256.hash(data: Data((challenge + "\n" + nonce).utf8)) {
            if byte == 0 {
                bits += 8
                continue
            }
            return bits + byte.leadingZeroBitCount
        }
        return bits
    }
}

extension PhoneIDs {
    /// The phone a reaction names, checked: a genuine, current id of this project's show on
    /// `beaconName` (the one its proof is for).
    func check(_ text: String?, project: String, beaconName: String, showStartedMs: Int64, nowMs: Int64) throws(APIError) -> Phone {
        guard let text, let phone = verify(id: text, nowMs: nowMs) else {
            throw APIError(.forbidden, "phone: not an id this hub gave, or expired: get one with POST /v1/phones", field: "phone")
        }
        guard phone.project == project, phone.beaconName == beaconName, phone.showStartedMs == showStartedMs else {
            throw APIError(.forbidden, "phone: the id is for another show: get one for this one with POST /v1/phones", field: "phone")
        }
        return phone
    }
}
