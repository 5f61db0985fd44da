import Foundation

// The JSON bodies of the API, field for field as Google's Proximity Beacon API named them, so a
// client written for it ports by changing the base URL. Binary values are standard base64.

/// What a beacon broadcasts: `{type, id}` with `id` in base64.
public struct AdvertisedID: Codable, Sendable, Equatable {
    /// `EDDYSTONE` (a UID, or Nearcast's direct token) or `EDDYSTONE_EID`.
    public var type: String
    public var id: String
}

/// The Eddystone way to register an EID beacon: both public keys, the beacon's rotation exponent
/// and clock, and the EID it showed at that clock, which proves both sides hold the same key.
public struct EphemeralIDRegistration: Codable, Sendable {
    public var beaconEcdhPublicKey: String
    public var serviceEcdhPublicKey: String
    public var rotationPeriodExponent: Int
    /// The beacon's 32-bit clock (read as Int64 so that a value out of range is named, not a
    /// bare "not valid JSON" from the decoder).
    public var initialClockValue: Int64
    public var initialEid: String
}

/// `POST /v1beta1/beacons:register`'s body.
struct RegisterBeaconRequest: Codable, Sendable {
    var advertisedId: AdvertisedID
    var ephemeralIdRegistration: EphemeralIDRegistration?
    var description: String?
}

/// A beacon as the API shows it to its project.
struct BeaconJSON: Codable, Sendable {
    var beaconName: String
    var advertisedId: AdvertisedID
    var status: String
    var description: String?
    /// Only the public parts: the exponent and the beacon's ECDH key (never the identity key).
    var ephemeralIdRegistration: PublicEIDRegistration?
    /// Nearcast: when the box last reported, and what (its status and problems).
    var lastHeartbeatTime: String?
    var heartbeat: Heartbeat?
    var clock: ClockObservation?
}

/// The parts of an EID registration the API shows back.
struct PublicEIDRegistration: Codable, Sendable {
    var beaconEcdhPublicKey: String
    var rotationPeriodExponent: Int
}

/// The hub's latest reading of a beacon's clock: `clockValue` at `observedTime`.
struct ClockObservation: Codable, Sendable {
    var clockValue: UInt32
    var observedTime: String
}

/// `POST /v1beta1/beacons/{id}/heartbeat`'s body (Nearcast; no Google counterpart): the box's
/// clock, a one-line status and its current device problems.
struct Heartbeat: Codable, Sendable {
    var clockValue: Int64?
    var status: String?
    var problems: [String]?
    var version: String?
    /// The name the venue gave the box (its room): becomes the beacon's description.
    var name: String?
}

/// `{beacons: [...]}`, the list call's answer.
struct BeaconListJSON: Codable, Sendable {
    var beacons: [BeaconJSON]
}

/// An attachment: content of up to 100 KiB with a namespaced type, kept on a beacon.
package struct AttachmentJSON: Codable, Sendable {
    package var attachmentName: String?
    package var namespacedType: String
    package var data: String
    package var creationTimeMs: String?
}

struct AttachmentListJSON: Codable, Sendable {
    var attachments: [AttachmentJSON]
}

/// `{numDeleted}`, as Google's batchDelete answered.
struct DeletedJSON: Codable, Sendable {
    var numDeleted: Int
}

/// `POST /v1beta1/beaconinfo:getforobserved`'s body.
struct GetForObservedRequest: Codable, Sendable {
    struct Observation: Codable, Sendable {
        var advertisedId: AdvertisedID
        var timestampMs: ObservedTime?
    }

    /// `timestampMs` as clients send it: Google's Timestamp (RFC 3339 text, what its client
    /// libraries send), or milliseconds since 1970 as a string or a JSON number.
    struct ObservedTime: Codable, Sendable {
        /// As sent, numbers in their decimal form; `HubClock.parseMs` judges it.
        var text: String

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let text = try? value.decode(String.self) {
                self.text = text
            } else if let ms = try? value.decode(Int64.self) {
                text = String(ms)
            } else if let ms = try? value.decode(Double.self) {
                text = "\(ms)"
            } else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath,
                    debugDescription: "an RFC 3339 time (2014-10-02T15:01:23.045123456Z) or milliseconds since 1970"))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var value = encoder.singleValueContainer()
            try value.encode(text)
        }
    }
    var observations: [Observation]
    var namespacedTypes: [String]?
}

/// `getforobserved`'s answer: the observed beacons that resolved, with their attachments.
struct GetForObservedResponse: Codable, Sendable {
    struct Beacon: Codable, Sendable {
        var advertisedId: AdvertisedID
        var beaconName: String
        var description: String?
        var attachments: [AttachmentJSON]
        /// Nearcast's addition: what lets the public key watch this beacon (its attachments, its
        /// show) for the next ten minutes (`BeaconReadGrant`).
        var watchToken: String?
        /// Nearcast's addition: whether the beacon carries a show now, so a page asks for the
        /// show only when there is one.
        var hasShow: Bool?
    }
    var beacons: [Beacon]
}

/// `GET /v1beta1/eidparams`'s answer.
struct EIDParamsJSON: Codable, Sendable {
    var serviceEcdhPublicKey: String
    var minRotationPeriodExponent: Int
    var maxRotationPeriodExponent: Int
}

/// What `nearcast-hub project create` prints.
public struct CreatedProject: Codable, Sendable {
    public var project: String
    public var apiKey: String
    public var secretKey: String
}

/// What `nearcast-hub project rotate-keys` prints: the new keys (a key not rotated is absent).
public struct RotatedKeys: Codable, Sendable {
    public var project: String
    public var apiKey: String?
    public var secretKey: String?

    package init(project: String, apiKey: String? = nil, secretKey: String? = nil) {
        self.project = project
        self.apiKey = apiKey
        self.secretKey = secretKey
    }
}

// The API's answers are encoded by the framework (HubRequestContext's encoder).
import Hummingbird
extension BeaconJSON: ResponseEncodable {}
extension BeaconListJSON: ResponseEncodable {}
extension AttachmentJSON: ResponseEncodable {}
extension AttachmentListJSON: ResponseEncodable {}
extension DeletedJSON: ResponseEncodable {}
extension GetForObservedResponse: ResponseEncodable {}
extension EIDParamsJSON: ResponseEncodable {}
