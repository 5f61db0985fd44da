import Crypto
import Foundation

/// Proof of presence by sight: the code on the presenter's screen, and the pass a phone gets for
/// it.
///
/// The code is 6 characters (Crockford base32, 30 bits) of an HMAC over the beacon's name, the
/// show's code salt (new when the presenter rotates the code) and the minute: it changes every
/// minute, so a photo or a livestream of the screen is a key for a minute or two at most. The
/// code of the current minute and of the one before is accepted (a phone typing it as it
/// changes). The pass is the phone's proof for the next `passMinutes`: its project, beacon and
/// expiry, signed. Both keys are derived from the service key, which lives in the database, so
/// every instance agrees.
struct Presence: Sendable {
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
    func codes(for beacon: ShowStore.LiveBeacon, nowMs: Int64) -> [Code] {
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

    /// What a pass grants.
    struct Pass: Sendable, Equatable {
        var project: String
        var beaconName: String
        var expiresMs: Int64
    }

    /// What a signed grant is for: a pass proves presence (and reads its beacon); a watch token
    /// (`BeaconReadGrant`) only reads, since resolving an EID up to an hour old earns one. Each
    /// has its own prefix and its own HMAC domain, so neither passes for the other.
    enum Purpose: Sendable {
        case pass, watch
        var prefix: String { self == .pass ? Presence.passPrefix : "ncwatch_" }
        var domain: Data { Data((self == .pass ? "pass\n" : "watch\n").utf8) }
    }

    func pass(_ pass: Pass, purpose: Purpose = .pass) -> String {
        sign([pass.project, pass.beaconName, String(pass.expiresMs)], prefix: purpose.prefix, domain: purpose.domain)
    }

    /// The pass (or watch token) a text stands for, if it is genuine, for `purpose` and not
    /// expired at `nowMs`.
    func verify(pass text: String, nowMs: Int64, purpose: Purpose = .pass) -> Pass? {
        guard let fields = signedFields(text, prefix: purpose.prefix, domain: purpose.domain), fields.count == 3,
              let expires = Int64(fields[2]), expires > nowMs else { return nil }
        return Pass(project: fields[0], beaconName: fields[1], expiresMs: expires)
    }

    /// `fields` (none holding a newline) signed under the presence key in `domain`, behind
    /// `prefix`: what a pass, a watch token, a phone id and its challenge are made of.
    func sign(_ fields: [String], prefix: String, domain: Data) -> String {
        let payload = Data(fields.joined(separator: "\n").utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: domain + payload, using: key)).prefix(16)
        return prefix + Self.base64URL(payload) + "." + Self.base64URL(mac)
    }

    /// The fields of a text `sign` made with `prefix` and `domain`, or nil if it is not genuine.
    func signedFields(_ text: String, prefix: String, domain: Data) -> [String]? {
        guard text.hasPrefix(prefix), text.count <= 1_000 else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: ".")
        guard parts.count == 2, let payload = Self.unbase64URL(String(parts[0])), let mac = Self.unbase64URL(String(parts[1])),
              mac.count == 16 else { return nil }
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
