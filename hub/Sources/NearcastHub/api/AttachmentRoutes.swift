import Hummingbird

/// A beacon's attachments: add, list, delete one, delete by type. All need the secret key.
enum AttachmentRoutes {
    static func add(to router: Router<BasicRequestContext>, _ hub: HubServices) {
        router.post("/v1beta1/beacons/:beacon/attachments") { request, context in
            let access = try await hub.access(request, manage: true)
            let name = try RequestSupport.beaconName(context)
            let body = try await RequestSupport.decode(AttachmentJSON.self, from: request)
            try NamespacedType.validate(body.namespacedType, project: access.project, field: "namespacedType")
            let data = try Base64Field.decode(body.data, field: "data")
            guard data.count <= AttachmentStore.maximumDataBytes else {
                throw APIError.invalid("data", "is \(data.count) bytes; an attachment holds at most \(AttachmentStore.maximumDataBytes) (100 KiB)")
            }
            let record = try await hub.attachments.add(project: access.project, beaconName: name,
                                                       namespacedType: body.namespacedType, data: Base64Field.encode(data))
            hub.logger.info("attachments: \(access.project) added \(body.namespacedType) (\(data.count) bytes) to \(name)")
            return try RequestSupport.json(record.json)
        }
        router.get("/v1beta1/beacons/:beacon/attachments") { request, context in
            let access = try await hub.access(request, manage: true)
            let filter = try filter(request)
            let records = try await hub.attachments.list(project: access.project, beaconName: try RequestSupport.beaconName(context),
                                                         filter: filter)
            return try RequestSupport.json(AttachmentListJSON(attachments: records.map(\.json)))
        }
        router.delete("/v1beta1/beacons/:beacon/attachments/:attachment") { request, context in
            let access = try await hub.access(request, manage: true)
            let id = context.parameters.get("attachment") ?? ""
            _ = try await hub.attachments.delete(project: access.project, beaconName: try RequestSupport.beaconName(context),
                                                 attachmentID: id)
            return try RequestSupport.json([String: String]())
        }
        router.post("/v1beta1/beacons/:beacon/attachments:batchDelete") { request, context in
            let access = try await hub.access(request, manage: true)
            let count = try await hub.attachments.delete(project: access.project, beaconName: try RequestSupport.beaconName(context),
                                                         attachmentID: nil, filter: try filter(request))
            return try RequestSupport.json(DeletedJSON(numDeleted: count))
        }
    }

    /// `?namespacedType=` (Google's list filter): one pattern, `*` when absent.
    static func filter(_ request: Request) throws -> NamespacedTypeFilter {
        guard let pattern = request.uri.queryParameters["namespacedType"], !pattern.isEmpty else { return .all }
        return try NamespacedTypeFilter(parsing: [String(pattern)], field: "namespacedType")
    }
}
