import NearcastCore
import NearcastDrivers

/// `nearcast ble-frame`: the BLE advertising data for a token.
struct BLEFrameCommand: RunnableCommand {
    static let node = CommandNode.command(
        "ble-frame",
        abstract: "Print the BLE advertising data (hex) that carries a token: Eddystone EID or UID.",
        discussion: """
            An EID is given either as its 8 bytes (--payload) or by --key, --exponent and --time, \
            which compute it as `nearcast eid` does. A direct token (1-8 bytes) rides in an \
            Eddystone-UID frame whose namespace starts with "NEARCST".
            """,
        arguments: [
            .option("kind", help: "Token kind: direct (the default) or eid."),
            .option("payload", help: "The token in hex (1-8 bytes for direct, 8 for eid)."),
            .option("key", help: "For --kind eid: the 16-byte identity key, in hex."),
            .option("exponent", help: "For --kind eid with --key: rotation exponent K (0-15)."),
            .option("time", help: "For --kind eid with --key: beacon time in seconds."),
            .option("tx-power", help: "Calibrated TX power at 0 m, dBm (-100 to 20; default 0)."),
        ],
        make: BLEFrameCommand.init)

    let kind: TokenKind
    let payload: String?
    let key: String?
    let exponent: Int?
    let time: UInt64?
    let txPower: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        kind = try arguments.value("kind", default: .direct)
        payload = try arguments.value("payload")
        key = try arguments.value("key")
        exponent = try arguments.value("exponent")
        time = try arguments.value("time")
        txPower = try arguments.value("tx-power", default: 0)

        guard (-100...20).contains(txPower) else { throw UsageError("--tx-power \(txPower): use -100 to 20 dBm") }
        let byKey = key != nil || exponent != nil || time != nil
        if kind == .direct && byKey { throw UsageError("--key, --exponent and --time are for --kind eid") }
        if payload != nil && byKey { throw UsageError("give either --payload or --key/--exponent/--time, not both") }
        if payload == nil && !byKey { throw UsageError("give --payload (or, for an EID, --key, --exponent and --time)") }
        if byKey && (key == nil || exponent == nil || time == nil) {
            throw UsageError("an EID from a key needs all of --key, --exponent and --time")
        }
        if let exponent, !(0...EphemeralIdentifier.maximumExponent).contains(exponent) {
            throw UsageError("--exponent \(exponent): use 0 to 15")
        }
        if let time, time > UInt64(UInt32.max) { throw UsageError("--time \(time): the beacon time is a 32-bit counter") }
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
