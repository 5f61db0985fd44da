import NearcastCore
import NearcastDrivers

/// The box's ``IdentityDerivation``: `nearcast hub-identity` in a short-lived child process
/// (OpenSSL's EVP, whose first use would cost the long-running daemon megabytes), its JSON read
/// from a pipe.
final class IdentityProcess: IdentityDerivation {
    private var running: (child: ChildProcess, started: Double)?
    /// `nearcast hub-identity` takes milliseconds; one that runs this long is stuck.
    static let timeoutSeconds = 30.0

    func start(serviceKey: [UInt8], now: Double) throws(HubFailure) {
        guard let executable = FileSystem.executablePath() else {
            throw HubFailure(message: "cannot find the nearcast executable for hub-identity")
        }
        do {
            let child = try ChildProcess(arguments: [executable, "hub-identity", "--service-key", Base64.encode(serviceKey)])
            running = (child, now)
        } catch {
            throw HubFailure(message: "cannot start nearcast hub-identity: \(error)")
        }
    }

    func poll(now: Double) -> Result<DerivedIdentity, HubFailure>? {
        guard let (child, started) = running else { return nil }
        let status: ChildProcess.Status
        do {
            guard let ended = try child.poll() else {
                guard now - started > Self.timeoutSeconds else { return nil }
                child.kill()
                running = nil
                return .failure(HubFailure(message: "nearcast hub-identity did not finish in \(Int(Self.timeoutSeconds)) s; killed"))
            }
            status = ended
        } catch {
            child.kill()
            running = nil
            return .failure(HubFailure(message: "waiting for nearcast hub-identity: \(error)"))
        }
        running = nil
        return Self.identity(status: status, output: String(decoding: child.output, as: UTF8.self),
                             errors: String(decoding: child.errors, as: UTF8.self))
    }

    func cancel() {
        running?.child.kill()
        running = nil
    }

    /// What `nearcast hub-identity` printed: `{"beaconPublicKey": base64, "identityKey": hex}`.
    static func identity(status: ChildProcess.Status, output: String, errors: String) -> Result<DerivedIdentity, HubFailure> {
        guard status == .exited(0), let json = JSON5Node.parse(json: output),
              let beacon = json["beaconPublicKey"]?.string.flatMap({ Base64.decode($0) }), beacon.count == 32,
              let key = json["identityKey"]?.string.flatMap({ try? Hex.parse($0) }), key.count == 16
        else {
            return .failure(HubFailure(message: "deriving the box's identity failed (\(status)): \(errors.trimmingWhitespace)"))
        }
        return .success(DerivedIdentity(beaconPublicKey: beacon, identityKey: key))
    }
}
