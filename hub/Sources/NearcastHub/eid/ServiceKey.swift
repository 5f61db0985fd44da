import Crypto
import Foundation

/// The hub's X25519 key pair for Eddystone-EID registration (`eidparams`' `serviceEcdhPublicKey`).
///
/// It lives in the storage (`HubBackend.loadServiceKey`), so every instance behind a load
/// balancer uses the same one.
package struct ServiceKey: Sendable {
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    package init(privateKey: Curve25519.KeyAgreement.PrivateKey) { self.privateKey = privateKey }
    var publicKey: Data { privateKey.publicKey.rawRepresentation }
}
