/// An attachment `{namespacedType, data}` on a beacon: a message the box publishes (an event id,
/// the presenter's slide), in the Proximity Beacon API's shape.
struct Attachment: Sendable {
    /// Nearby's limit on a message's content.
    static let maximumDataBytes = 100 * 1024

    var beaconName: String
    var attachmentID: String
    var namespacedType: String
    var data: String
    var createdMs: Int64

    var json: AttachmentJSON {
        AttachmentJSON(attachmentName: "\(beaconName)/attachments/\(attachmentID)", namespacedType: namespacedType,
                       data: data, creationTimeMs: HubClock.timestamp(ms: createdMs))
    }
}
