import NearcastCore
import NearcastDrivers

/// `nearcast hub-identity`: the beacon's side of Eddystone-EID registration with a hub. The
/// daemon runs it as a short-lived child process, because the key exchange goes through
/// OpenSSL's EVP, whose first use would cost the long-running daemon megabytes of memory.
struct HubIdentityCommand: RunnableCommand {
    static let node = CommandNode.command(
        "hub-identity",
        abstract: "Derive an Eddystone-EID identity with a hub's X25519 key (run by the daemon for --hub).",
        discussion: """
            Makes a fresh X25519 key pair, agrees a secret with the hub's public key and derives the \
            16-byte identity key (HKDF-SHA256). Prints {"beaconPublicKey": base64, "identityKey": hex}: \
            the public key goes to the hub, the identity key stays on the box.
            """,
        arguments: [
            .option("service-key", required: true, help: "The hub's serviceEcdhPublicKey (base64, from GET /v1beta1/eidparams)."),
        ],
        make: HubIdentityCommand.init)

    let serviceKey: [UInt8]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let text: String = try arguments.required("service-key")
        guard let key = Base64.decode(text), key.count == 32 else {
            throw UsageError("--service-key \(text): the hub's X25519 public key is 32 bytes in base64")
        }
        serviceKey = key
    }

    func run() throws {
        let keys: (beaconPublicKey: [UInt8], identityKey: [UInt8])
        do { keys = try EddystoneKeyExchange.derive(servicePublicKey: serviceKey) } catch {
            throw CommandFailure("\(error)")
        }
        var writer = JSONObjectWriter()
        writer.add("beaconPublicKey", Base64.encode(keys.beaconPublicKey))
        writer.add("identityKey", Hex.format(keys.identityKey))
        StandardStreams.line(writer.text)
    }
}
