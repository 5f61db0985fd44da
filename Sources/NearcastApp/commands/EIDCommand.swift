import ArgumentParser
import NearcastCore
import NearcastDrivers

/// `nearcast eid`: the Eddystone-EID for a key, exponent and beacon time.
struct EIDCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eid",
        abstract: "Print the 8-byte Eddystone EID (hex) for an identity key, rotation exponent and beacon time.")

    @Option(help: "The 16-byte identity key, in hex.")
    var key: String

    @Option(help: "Rotation exponent K: the EID changes every 2^K seconds (0-15).")
    var exponent: Int

    @Option(help: "Beacon time in seconds (0-4294967295).")
    var time: UInt64

    func validate() throws {
        guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
            throw ValidationError("--exponent \(exponent): use 0 to 15")
        }
        guard time <= UInt64(UInt32.max) else {
            throw ValidationError("--time \(time): the beacon time is a 32-bit counter (0-4294967295)")
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
