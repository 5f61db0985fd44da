import NearcastCore
import NearcastDrivers

/// `nearcast eid`: the Eddystone-EID for a key, exponent and beacon time.
struct EIDCommand: RunnableCommand {
    static let node = CommandNode.command(
        "eid",
        abstract: "Print the 8-byte Eddystone EID (hex) for an identity key, rotation exponent and beacon time.",
        arguments: [
            .option("key", required: true, help: "The 16-byte identity key, in hex."),
            .option("exponent", required: true, help: "Rotation exponent K: the EID changes every 2^K seconds (0-15)."),
            .option("time", required: true, help: "Beacon time in seconds (0-4294967295)."),
        ],
        make: EIDCommand.init)

    let key: String
    let exponent: Int
    let time: UInt64

    init(_ arguments: ParsedArguments) throws(UsageError) {
        key = try arguments.required("key")
        exponent = try arguments.required("exponent")
        time = try arguments.required("time")
        guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
            throw UsageError("--exponent \(exponent): use 0 to 15")
        }
        guard time <= UInt64(UInt32.max) else {
            throw UsageError("--time \(time): the beacon time is a 32-bit counter (0-4294967295)")
        }
    }

    func run() throws {
        let identityKey: [UInt8]
        do { identityKey = try EphemeralIdentifier.identityKey(hex: key) } catch { throw CommandFailure("--key: \(error)") }
        let eid = try EphemeralIdentifier.compute(identityKey: identityKey, exponent: exponent,
                                                  time: UInt32(time), cipher: OpenSSLAES128())
        StandardStreams.line(eid.hex)
    }
}
