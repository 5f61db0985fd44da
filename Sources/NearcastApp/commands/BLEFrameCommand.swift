import ArgumentParser
import NearcastCore
import NearcastDrivers

/// `nearcast ble-frame`: the BLE advertising data for a token.
struct BLEFrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ble-frame",
        abstract: "Print the BLE advertising data (hex) that carries a token: Eddystone EID or UID.",
        discussion: """
            An EID is given either as its 8 bytes (--payload) or by --key, --exponent and --time, \
            which compute it as `nearcast eid` does. A direct token (1-8 bytes) rides in an \
            Eddystone-UID frame whose namespace starts with "NEARCST".
            """)

    @Option(help: "Token kind: direct or eid.")
    var kind: TokenKind = .direct

    @Option(help: "The token in hex (1-8 bytes for direct, 8 for eid).")
    var payload: String?

    @Option(help: "For --kind eid: the 16-byte identity key, in hex.")
    var key: String?

    @Option(help: "For --kind eid with --key: rotation exponent K (0-15).")
    var exponent: Int?

    @Option(help: "For --kind eid with --key: beacon time in seconds.")
    var time: UInt64?

    @Option(parsing: .unconditional, help: "Calibrated TX power at 0 m, dBm (-100 to 20).")
    var txPower: Int = 0

    func validate() throws {
        guard (-100...20).contains(txPower) else { throw ValidationError("--tx-power \(txPower): use -100 to 20 dBm") }
        let byKey = key != nil || exponent != nil || time != nil
        if kind == .direct && byKey { throw ValidationError("--key, --exponent and --time are for --kind eid") }
        if payload != nil && byKey { throw ValidationError("give either --payload or --key/--exponent/--time, not both") }
        if payload == nil && !byKey { throw ValidationError("give --payload (or, for an EID, --key, --exponent and --time)") }
        if byKey && (key == nil || exponent == nil || time == nil) {
            throw ValidationError("an EID from a key needs all of --key, --exponent and --time")
        }
        if let exponent, !(0...EphemeralIdentifier.maximumExponent).contains(exponent) {
            throw ValidationError("--exponent \(exponent): use 0 to 15")
        }
        if let time, time > UInt64(UInt32.max) { throw ValidationError("--time \(time): the beacon time is a 32-bit counter") }
    }

    func run() throws {
        let token: Token
        if let payload {
            do { token = try Token(kind: kind, hex: payload) } catch { throw CommandFailure("--payload: \(error)") }
        } else {
            let identityKey: [UInt8]
            do { identityKey = try EphemeralIdentifier.identityKey(hex: key ?? "") } catch { throw CommandFailure("--key: \(error)") }
            token = try EphemeralIdentifier.compute(identityKey: identityKey, exponent: exponent ?? 0,
                                                    time: UInt32(time ?? 0), cipher: OpenSSLAES128())
        }
        StandardStreams.line(EddystoneFrame.advertisingData(for: token, txPower: Int8(txPower)).description)
    }
}
