import NearcastCore

/// The Proximity Beacon API as the box speaks it: the bodies of its requests and what it reads
/// from the answers, in the API's JSON shapes. ``HubSync`` decides which call comes next and
/// what an answer means; this file alone knows how either looks on the wire.
enum HubAPI {
    /// `POST /v1beta1/beacons:register`'s body: the EID registration with the keys, the rotation
    /// exponent, the clock and the EID at that clock.
    static func registration(eid: [UInt8], initialTime: UInt32, beaconPublicKey: [UInt8], serviceKey: [UInt8],
                             exponent: Int, description: String) -> String {
        var advertised = JSONObjectWriter()
        advertised.add("type", "EDDYSTONE_EID")
        advertised.add("id", Base64.encode(eid))
        var registration = JSONObjectWriter()
        registration.add("beaconEcdhPublicKey", Base64.encode(beaconPublicKey))
        registration.add("serviceEcdhPublicKey", Base64.encode(serviceKey))
        registration.add("rotationPeriodExponent", exponent)
        registration.add("initialClockValue", Int(initialTime))
        registration.add("initialEid", Base64.encode(eid))
        var writer = JSONObjectWriter()
        writer.add("advertisedId", object: advertised)
        writer.add("ephemeralIdRegistration", object: registration)
        writer.add("description", description)
        return writer.text
    }

    /// `POST BEACON/attachments`'s body: one message.
    static func attachment(namespacedType: String, bytes: [UInt8]) -> String {
        var writer = JSONObjectWriter()
        writer.add("namespacedType", namespacedType)
        writer.add("data", Base64.encode(bytes))
        return writer.text
    }

    /// `POST BEACON/heartbeat`'s body: the beacon clock and the box's report.
    static func heartbeat(clockValue: UInt32, _ report: HubHeartbeat) -> String {
        var writer = JSONObjectWriter()
        writer.add("clockValue", Int(clockValue))
        writer.add("status", report.status)
        writer.add("problems", strings: report.problems)
        writer.add("version", report.version)
        if let name = report.name { writer.add("name", name) }
        return writer.text
    }

    /// `GET /v1beta1/eidparams`'s answer: the hub's X25519 key and the exponents it takes.
    struct Parameters: Equatable {
        var serviceKey: [UInt8]
        var exponents: ClosedRange<Int>
    }

    /// The parameters in `body`, or nil when it is not a hub's parameters.
    static func parameters(_ body: String) -> Parameters? {
        guard let json = JSON5Node.parse(json: body),
              let key = json["serviceEcdhPublicKey"]?.string.flatMap({ Base64.decode($0) }), key.count == 32,
              let low = json["minRotationPeriodExponent"]?.integer, let high = json["maxRotationPeriodExponent"]?.integer,
              low <= high
        else { return nil }
        return Parameters(serviceKey: key, exponents: low...high)
    }

    /// One attachment of a listing: only what the box compares and deletes by.
    struct Attachment: Equatable {
        var namespacedType: String?
        var attachmentName: String?
        /// Base64, as the API keeps it.
        var data: String
    }

    /// What the box reads from any answer: the beacon's name (a registration), the attachment
    /// list (nil when the body holds none: a listing cut short must not read as "nothing"), and
    /// an error's message and field.
    struct Answer: Equatable {
        var beaconName: String?
        var attachments: [Attachment]?
        var errorMessage: String?
        var errorField: String?
    }

    /// The answer in `body` (every member nil when it is not JSON).
    static func answer(_ body: String) -> Answer {
        let json = JSON5Node.parse(json: body)
        return Answer(
            beaconName: json?["beaconName"]?.string,
            attachments: json?["attachments"]?.array?.map {
                Attachment(namespacedType: $0["namespacedType"]?.string, attachmentName: $0["attachmentName"]?.string,
                           data: $0["data"]?.string ?? "")
            },
            errorMessage: json?["error"]?["message"]?.string,
            errorField: json?["error"]?["field"]?.string)
    }
}

/// What the box tells the hub with each heartbeat.
struct HubHeartbeat: Equatable {
    var status: String
    var problems: [String]
    var version: String
    /// The venue's name for the box, when it has one.
    var name: String? = nil
}

/// The names a hub gives beacons and attachments: they go into URLs, so only their shape is taken.
enum HubNames {
    /// `beacons/3!HEX` or `beacons/4!HEX`, lowercase hex: what a hub names beacons.
    static func isBeaconName(_ text: String) -> Bool {
        guard text.hasPrefix("beacons/3!") || text.hasPrefix("beacons/4!") else { return false }
        let hex = text.dropFirst(10)
        return (1...32).contains(hex.count) && hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// `BEACON/attachments/ID` of this box's beacon, ID letters and digits only.
    static func isAttachmentName(_ text: String, of beacon: String?) -> Bool {
        guard let beacon, text.hasPrefix(beacon + "/attachments/") else { return false }
        let id = text.dropFirst(beacon.count + 13)
        return (1...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
