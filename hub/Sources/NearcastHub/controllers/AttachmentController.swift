import Hummingbird
import Logging

/// A beacon's attachments: add, list, delete one, delete by type. All need the secret key.
struct AttachmentController: Sendable {
    let attachments: any AttachmentRepository
    let logger: Logger
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let router = keys.group(routes, .manage)
        router.post("/v1beta1/beacons/:beacon/attachments") { request, context in
            let access = try context.caller()
            let beacon = try context.beacon(), name = beacon.beaconName
            let body = try await request.decode(as: AttachmentJSON.self, context: context)
            try NamespacedType.validate(body.namespacedType, project: access.project, field: "namespacedType")
            let data = try Base64Field.decode(body.data, field: "data")
            guard data.count <= Attachment.maximumDataBytes else {
                throw APIError.invalid("data", "is \(data.count) bytes; an attachment holds at most \(Attachment.maximumDataBytes) (100 KiB)")
            }
            let record = try await attachments.add(beacon, 
                                                       namespacedType: body.namespacedType, data: Base64Field.encode(data))
            logger.info("attachments: \(access.project) added \(body.namespacedType) (\(data.count) bytes) to \(name)")
            return record.json
        }
        router.get("/v1beta1/beacons/:beacon/attachments") { request, context in
            let access = try context.caller()
            let filter = try Self.filter(request)
            let records = try await attachments.list(BeaconRef(project: access.project, beaconName: try RequestSupport.beaconName(context)), 
                                                         filter: filter)
            return AttachmentListJSON(attachments: records.map(\.json))
        }
        router.delete("/v1beta1/beacons/:beacon/attachments/:attachment") { request, context in
            let access = try context.caller()
            let id = context.parameters.get("attachment") ?? ""
            _ = try await attachments.delete(BeaconRef(project: access.project, beaconName: try RequestSupport.beaconName(context)), 
                                                 attachmentID: id)
            return EmptyJSON()
        }
        router.post("/v1beta1/beacons/:beacon/attachments:batchDelete") { request, context in
            let access = try context.caller()
            let count = try await attachments.delete(BeaconRef(project: access.project, beaconName: try RequestSupport.beaconName(context)), 
                                                         attachmentID: nil, filter: try Self.filter(request))
            return DeletedJSON(numDeleted: count)
        }
        return routes
    }

    /// `?namespacedType=` (Google's list filter): one pattern, `*` when absent.
    static func filter(_ request: Request) throws -> NamespacedTypeFilter {
        guard let pattern = request.uri.queryParameters["namespacedType"], !pattern.isEmpty else { return .all }
        return try NamespacedTypeFilter(parsing: [String(pattern)], field: "namespacedType")
    }
}
