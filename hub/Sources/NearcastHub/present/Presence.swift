import Crypto
import Foundation

/// Proof of presence by sight: the code on the presenter's screen, and the pass a phone gets for
/// it.
///
/// The code is 6 characters (Crockford base32, 30 bits) of an HMAC over the beacon's name, the
/// show's code salt (new when the presenter rotates the code) and the minute: it changes every
/// minute, so a photo or a livestream of the screen is a key for a minute or two at most. The
/// code of the current minute and of the one before is accepted (a phone typing it as it
/// changes). The pass is the phone's proof for the next `passMilliseconds`: its project, beacon,
/// show (its start and its code's salt, so a new show or a new code revokes it) and expiry,
/// signed. Both keys are derived from the service key, which lives in the database, so
/// every instance agrees.
package struct Presence: Sendable {
    static let passPrefix = "ncpass_"
    static let passMilliseconds: Int64 = 10 * 60_000
    static let codeLength = 6
    /// How long one code is shown.
    static let codeMilliseconds: Int64 = 60_000
    /// Crockford's base32: no I, L, O or U, so a typed code is not misread.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    private let key: SymmetricKey

    init(serviceKey: ServiceKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: serviceKey.privateKey.rawRepresentation),
                                     info: Data("nearcast presence v1".utf8), outputByteCount: 32)
    }

    /// A show's code in one minute.
    struct Code: Sendable, Equatable {
        var code: String
        /// 0 for the current minute, 1 for the one before.
        var minutesBehind: Int64
        /// When it stops being the one shown, in hub time.
        var expiresMs: Int64
    }

    /// The show's codes for the current minute and the one before; none while code joining is
    /// off.
    func codes(for beacon: Show.LiveBeacon, nowMs: Int64) -> [Code] {
        guard beacon.codeJoining, nowMs >= 0 else { return [] }
        let minute = nowMs / Self.codeMilliseconds
        return (Int64(0)...1).map { behind in
            Code(code: code(beaconName: beacon.beaconName, salt: beacon.codeSalt, minute: minute - behind), minutesBehind: behind,
                 expiresMs: (minute - behind + 1) * Self.codeMilliseconds)
        }
    }

    func code(beaconName: String, salt: String, minute: Int64) -> String {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data("code v2\n\(beaconName)\n\(salt)\n\(minute)".utf8), using: key))
        let bits = UInt32(mac[0]) << 24 | UInt32(mac[1]) << 16 | UInt32(mac[2]) << 8 | UInt32(mac[3])
        return String((0..<Self.codeLength).map { Self.alphabet[Int((bits >> UInt32(27 - 5 * $0)) & 31)] })
    }

    /// A typed code as the hub compares it: upper case, without spaces and dashes, with the
    /// letters Crockford's base32 reads as digits (O as 0, I and L as 1).
    static func normalise(_ typed: String) -> String {
        String(typed.uppercased().compactMap { character -> Character? in
            switch character {
            case " ", "-": return nil
            case "O": return "0"
            case "I", "L": return "1"
            default: return character
            }
        })
    }

    /// What a pass grants: proof that a phone is in `beaconName`'s room, for one show, until it
    /// expires or the show revokes it (`holds(for:)`). A watch token (`BeaconReadGrant`) is
    /// signed the same way but names no show: it only reads.
    package struct Pass: Sendable, Equatable {
        var project: String
        var beaconName: String
        var expiresMs: Int64
        /// The show the pass is for; nil in a watch token.
        var show: ShowBinding?
    }

    /// How a phone earned its pass: hearing the box's EID, or seeing the code on its screen.
    enum Proof: String, Sendable {
        case heard, seen
    }

    /// The show a pass was given for, as the pass names it: the show's start, a tag of the
    /// code's salt then, and how the phone earned it. A new show, a new code (K) and, for a pass
    /// from the code, joining by code turned off (J) revoke it: a phone in the room renews it by
    /// hearing the box or by the current code.
    struct ShowBinding: Sendable, Equatable {
        var startedMs: Int64
        var saltTag: String
        var proof: Proof

        init(startedMs: Int64, saltTag: String, proof: Proof) {
            self.startedMs = startedMs
            self.saltTag = saltTag
            self.proof = proof
        }

        /// The binding of a pass earned now for `show` by `proof`.
        init(_ show: Show, proof: Proof) {
            self.init(startedMs: show.startedMs, saltTag: Presence.saltTag(show.sightCode.salt), proof: proof)
        }

        /// Whether a pass so bound still proves presence at `show` (the beacon's show now, nil
        /// when it has none).
        func holds(for show: Show?) -> Bool {
            holds(against: show.map(ShowStanding.init))
        }

        /// The same against what the show stands by, worked out once (`ShowStanding`).
        func holds(against standing: ShowStanding?) -> Bool {
            guard let standing, standing.startedMs == startedMs, standing.saltTag == saltTag else { return false }
            return proof == .heard || standing.joining
        }
    }

    /// What a show's passes must match now: its start, its code's salt tag, whether joining by
    /// code is on. The salt's tag is a SHA-256: a page turn checks every pass following the show
    /// (thousands), so it is worked out once a check, not once a pass.
    struct ShowStanding: Sendable, Equatable {
        var startedMs: Int64
        var saltTag: String
        var joining: Bool

        init(_ show: Show) {
            startedMs = show.startedMs
            saltTag = Presence.saltTag(show.sightCode.salt)
            joining = show.sightCode.joining
        }
    }

    /// A short, one-way tag of a code salt: a pass names the salt it was given under without
    /// carrying it.
    static func saltTag(_ salt: String) -> String {
        base64URL(Data(SHA256.hash(data: Data("salt\n\(salt)".utf8)).prefix(9)))
    }

    /// What a signed grant is for: a pass proves presence (and reads its beacon); a watch token
    /// (`BeaconReadGrant`) only reads, since resolving an EID up to an hour old earns one. Each
    /// has its own prefix and its own HMAC domain, so neither passes for the other.
    enum Purpose: Sendable {
        case pass, watch
        var prefix: String { self == .pass ? Presence.passPrefix : "ncwatch_" }
        var domain: Data { Data((self == .pass ? "pass v2\n" : "watch\n").utf8) }
    }

    /// A pass (with its show) or a watch token (without).
    func pass(_ pass: Pass, purpose: Purpose = .pass) -> String {
        var fields = [pass.project, pass.beaconName, String(pass.expiresMs)]
        if let show = pass.show { fields += [String(show.startedMs), show.saltTag, show.proof.rawValue] }
        return sign(fields, prefix: purpose.prefix, domain: purpose.domain)
    }

    /// The pass (or watch token) a text stands for, if it is genuine, for `purpose` and not
    /// expired at `nowMs`. Whether its show still stands by it is `ShowBinding.holds(for:)`'s.
    func verify(pass text: String, nowMs: Int64, purpose: Purpose = .pass) -> Pass? {
        guard let fields = signedFields(text, prefix: purpose.prefix, domain: purpose.domain),
              fields.count == (purpose == .pass ? 6 : 3), let expires = Int64(fields[2]), expires > nowMs else { return nil }
        var pass = Pass(project: fields[0], beaconName: fields[1], expiresMs: expires)
        if purpose == .pass {
            guard let started = Int64(fields[3]), let proof = Proof(rawValue: fields[5]) else { return nil }
            pass.show = ShowBinding(startedMs: started, saltTag: fields[4], proof: proof)
        }
        return pass
    }

    /// `fields` (none holding a newline) signed under the presence key in `domain`, behind
    /// `prefix`: what a pass, a watch token, a phone id and its challenge are made of.
    func sign(_ fields: [String], prefix: String, domain: Data) -> String {
        let payload = Data(fields.joined(separator: "\n").utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: domain + payload, using: key)).prefix(16)
        return prefix + Self.base64URL(payload) + "." + Self.base64URL(mac)
    }

    /// The fields of a text `sign` made with `prefix` and `domain`, or nil if it is not genuine.
    /// Only `sign`'s own spelling is: base64 that decodes leniently (other values in the unused
    /// low bits of the last digit, `=` padding) would give one grant many texts, and every text
    /// that keys a count (a phone's rate) would count as another phone. A text longer than
    /// `maximumCharacters` is not read at all.
    func signedFields(_ text: String, prefix: String, domain: Data, maximumCharacters: Int = 1_000) -> [String]? {
        guard text.hasPrefix(prefix), text.count <= maximumCharacters else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Self.unbase64URL(String(parts[0])), let mac = Self.unbase64URL(String(parts[1])),
              mac.count == 16, Self.base64URL(payload) == parts[0], Self.base64URL(mac) == parts[1] else { return nil }
        let expected = Data(HMAC<SHA256>.authenticationCode(for: domain + payload, using: key)).prefix(16)
        // Constant time: a forgery learns nothing from how long the refusal took.
        guard expected.count == mac.count, zip(expected, mac).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else { return nil }
        return String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64URL(_ text: String) -> Data? {
        var normal = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normal.count % 4 != 0 { normal += "=" }
        return Data(base64Encoded: normal)
    }
}
