import Crypto
import Foundation
import NearcastCore

/// A project's name and keys, whichever storage keeps them: the name's rule, new random keys
/// (`ncpub_` public, `ncsec_` secret) and the hash a key is stored and looked up as. Keys carry
/// 192 bits of entropy, so a plain SHA-256 is as good as a slow hash here.
public enum ProjectKeys {
    /// Lowercase letters, digits and dashes, starting with a letter, at most 63: it is the
    /// namespace in every `NAME/TYPE`, so it may not hold a slash.
    package static func validate(name: String) throws(APIError) {
        let bytes = Array(name.utf8)
        guard (1...63).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              bytes.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") })
        else {
            throw APIError.invalid("project", "'\(name)' must be 1-63 lowercase letters, digits or dashes, starting with a letter")
        }
    }

    /// Which of a project's keys a rotation replaces.
    public enum Rotation: String, Sendable, CaseIterable {
        case both, `public`, secret
    }

    package static func hash(_ key: String) -> String {
        // Every request's key is hashed: the core's hex, not 32 String(format:) calls.
        Hex.format(SHA256.hash(data: Data(key.utf8)))
    }

    /// A checked name and new random keys for it (`ncpub_` public, `ncsec_` secret).
    package static func newKeys(for name: String) throws(APIError) -> CreatedProject {
        try validate(name: name)
        return CreatedProject(project: name, apiKey: "ncpub_" + randomKey(), secretKey: "ncsec_" + randomKey())
    }

    package static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
