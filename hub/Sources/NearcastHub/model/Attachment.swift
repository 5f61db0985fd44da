/// An attachment `{namespacedType, data}` on a beacon: a message the box publishes (an event id,
/// the presenter's slide), in the Proximity Beacon API's shape.
package struct Attachment: Sendable {
    /// Nearby's limit on a message's content.
    package static let maximumDataBytes = 100 * 1024

    package var beaconName: String
    package var attachmentID: String
    package var namespacedType: String
    package var data: String
    package var createdMs: Int64

    package init(beaconName: String, attachmentID: String, namespacedType: String, data: String, createdMs: Int64) {
        self.beaconName = beaconName
        self.attachmentID = attachmentID
        self.namespacedType = namespacedType
        self.data = data
        self.createdMs = createdMs
    }

    package var json: AttachmentJSON {
        AttachmentJSON(attachmentName: "\(beaconName)/attachments/\(attachmentID)", namespacedType: namespacedType,
                       data: data, creationTimeMs: HubClock.timestamp(ms: createdMs))
    }
}
