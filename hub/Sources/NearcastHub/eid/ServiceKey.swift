import Crypto
import Foundation
import SQLKit

/// The hub's X25519 key pair for Eddystone-EID registration (`eidparams`' `serviceEcdhPublicKey`).
///
/// It lives in the database, so every instance behind a load balancer uses the same one: the first
/// instance to start makes it, the others read it (an insert that does nothing if a row exists,
/// then a read, so two first starts still agree).
struct ServiceKey: Sendable {
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    var publicKey: Data { privateKey.publicKey.rawRepresentation }

    static func load(from database: HubDatabase) async throws -> ServiceKey {
        let candidate = Curve25519.KeyAgreement.PrivateKey().rawRepresentation.base64EncodedString()
        let stored = try await database.transaction { db in
            try await db.raw("""
                INSERT INTO hub_settings (name, value) VALUES ('service_ecdh_private_key', \(bind: candidate))
                ON CONFLICT (name) DO NOTHING
                """).run()
            guard let row = try await db.raw("SELECT value FROM hub_settings WHERE name = 'service_ecdh_private_key'").first()
            else { throw HubConfigurationError("the service key was not stored") }
            return try row.decode(column: "value", as: String.self)
        }
        guard let raw = Data(base64Encoded: stored),
              let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
        else { throw HubConfigurationError("the database's service_ecdh_private_key is damaged") }
        return ServiceKey(privateKey: key)
    }
}
