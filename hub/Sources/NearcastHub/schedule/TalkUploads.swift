import Crypto
import Foundation

/// The address a speaker uploads their talk's deck to (`uploadPath`, `/upload/TOKEN`): a
/// capability, not a key. The token names the project and the talk's guid and carries an HMAC of
/// them under a key derived from the service key (which every instance shares), so any instance
/// checks it without storing it, and nobody makes one for another talk.
package struct TalkUploads: Sendable {
    static let pathPrefix = "/upload/"
    private let key: SymmetricKey

    init(serviceKey: ServiceKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: serviceKey.privateKey.rawRepresentation),
                                     info: Data("nearcast talk upload v1".utf8), outputByteCount: 32)
    }

    /// The talk's upload address, for the operator to send its speaker.
    func path(project: String, guid: String) -> String {
        let subject = Data((project + "\n" + guid).utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: subject, using: key)).prefix(16)
        return Self.pathPrefix + Self.base64URL(subject) + "." + Self.base64URL(mac)
    }

    /// The project and talk a token names, if it is one this hub made.
    func talk(token: String) -> (project: String, guid: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let subject = Self.data(base64URL: String(parts[0])),
              let text = String(data: subject, encoding: .utf8), let newline = text.firstIndex(of: "\n") else { return nil }
        let (project, guid) = (String(text[..<newline]), String(text[text.index(after: newline)...]))
        // Compared as the whole address this hub would write: one spelling only.
        guard path(project: project, guid: guid) == Self.pathPrefix + token else { return nil }
        return (project, guid)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
