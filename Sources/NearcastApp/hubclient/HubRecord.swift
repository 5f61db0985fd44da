import NearcastCore
import NearcastDrivers

/// What the box remembers about its hub, `hub.json` in the state directory (mode 0600: it holds
/// the identity key): which hub, the box's EID identity derived with that hub's key, the name it
/// was registered under, and the namespaced types it keeps attached there (so a message
/// unpublished while the hub was unreachable is still removed later).
///
/// A record for another hub URL is not used: the box derives a new identity for a new hub.
struct HubRecord: Equatable {
    static let fileName = "hub.json"

    var hub: String
    var serviceKey: [UInt8]
    var beaconPublicKey: [UInt8]
    var identityKey: [UInt8]
    var exponent: Int
    /// `beacons/4!…` once the hub accepted the registration.
    var beaconName: String?
    var managedTypes: [String] = []

    var text: String {
        var writer = JSONObjectWriter()
        writer.add("hub", hub)
        writer.add("serviceKey", Base64.encode(serviceKey))
        writer.add("beaconPublicKey", Base64.encode(beaconPublicKey))
        writer.add("identityKey", Hex.format(identityKey))
        writer.add("exponent", exponent)
        if let beaconName { writer.add("beaconName", beaconName) }
        writer.add("managedTypes", strings: managedTypes)
        return writer.text + "\n"
    }

    static func parse(_ text: String) -> HubRecord? {
        guard let root = JSON5Node.parse(json: text), let hub = root["hub"]?.string,
              let service = root["serviceKey"]?.string.flatMap({ Base64.decode($0) }), service.count == 32,
              let beacon = root["beaconPublicKey"]?.string.flatMap({ Base64.decode($0) }), beacon.count == 32,
              let key = root["identityKey"]?.string.flatMap({ try? Hex.parse($0) }), key.count == 16,
              let exponent = root["exponent"]?.integer, (0...EphemeralIdentifier.maximumExponent).contains(exponent)
        else { return nil }
        return HubRecord(hub: hub, serviceKey: service, beaconPublicKey: beacon, identityKey: key, exponent: exponent,
                         beaconName: root["beaconName"]?.string,
                         managedTypes: root["managedTypes"]?.array?.compactMap(\.string) ?? [])
    }

    /// The record for `hub`, nil when there is none (or it is for another hub, or damaged:
    /// then the box derives a fresh identity and registers again).
    static func load(from state: StateDirectory, hub: String, log: (String) -> Void) -> HubRecord? {
        let path = state.file(fileName)
        guard FileSystem.exists(path) else { return nil }
        guard let text = try? FileSystem.readText(path, limit: 64 * 1024), let record = parse(text) else {
            log("warning: \(path) is damaged; the box derives a new identity with the hub and registers again")
            return nil
        }
        guard record.hub == hub else {
            log("hub: \(path) is for \(record.hub), not \(hub): the box derives a new identity for this hub")
            return nil
        }
        return record
    }

    func save(to state: StateDirectory) throws(SystemError) {
        try FileSystem.writeAtomically(state.file(Self.fileName), Array(text.utf8), mode: 0o600)
    }
}
