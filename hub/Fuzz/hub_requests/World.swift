import Foundation
import HTTPTypes
import Hummingbird
import Logging
@testable import NearcastHub
import NearcastHubStorage
import NIOCore
import NIOEmbedded
import SQLKit

/// The hub every fuzz input is sent to: a SQLite file in a temporary folder, limits off (they
/// would soon refuse everything), a project `demo` and a UID beacon with an attachment that the
/// seeds' path parameters name, so inputs reach the stores and not only the refusals.
final class World: @unchecked Sendable {   // set up once, then only read
    nonisolated(unsafe) static var shared: World!

    static let beaconName = "beacons/3!0102030405060708"

    let hub: HubServices
    /// The hub's database, read to count its rows.
    let database: HubDatabase
    let router: Router<HubRequestContext>
    let keys: CreatedProject
    let logger: Logger
    /// The one channel every request's context names (a channel made per request is a
    /// reference cycle the testing channels leave for `close()`, which LeakSanitizer reports).
    /// NIOAsyncTestingChannel, not EmbeddedChannel: the requests run on the concurrency pool's
    /// threads, and EmbeddedChannel's loop may be used only from the thread that made it.
    let channel = NIOAsyncTestingChannel()

    init(hub: HubServices, database: HubDatabase, router: Router<HubRequestContext>, keys: CreatedProject, logger: Logger) {
        self.hub = hub
        self.database = database
        self.router = router
        self.keys = keys
        self.logger = logger
    }

    static func make() async throws -> World {
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical                 // the hub logs every refusal otherwise
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-hub-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = try await HubDatabase.open(.sqlite(path: folder.appendingPathComponent("hub.sqlite").path), logger: logger)
        let hub = try await HubServices.make(backend: SQLBackend(database: database), logger: logger, limits: .off)
        let keys = try await hub.repositories.projects.create(name: "demo")
        let world = World(hub: hub, database: database, router: buildRouter(hub), keys: keys, logger: logger)
        let setUp = [
            FuzzRequest(method: .post, uri: "/v1beta1/beacons:register", key: keys.secretKey,
                        body: Array(#"{"advertisedId":{"type":"EDDYSTONE","id":"AQIDBAUGBwg="},"description":"stage"}"#.utf8)),
            FuzzRequest(method: .post, uri: "/v1beta1/\(beaconName)/attachments", key: keys.secretKey,
                        body: Array(#"{"namespacedType":"demo/slide","data":"U2xpZGUgMQ=="}"#.utf8)),
        ]
        for request in setUp {
            let answer = try await world.answer(request)
            guard answer.status == 200 else {
                throw FuzzSetUpError(message: "\(request) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
        return world
    }

    /// The router's answer to `request`, as the server would send it (an error thrown by a route
    /// becomes its response; any other error propagates: the server would answer a bare 500).
    func answer(_ request: FuzzRequest) async throws -> Answer {
        let before = try await tableRows()
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let key = request.key, let name = HTTPField.Name("X-Api-Key") { fields[name] = key }
        let head = HTTPRequest(method: request.method, scheme: "http", authority: "hub.fuzz", path: request.uri,
                               headerFields: fields)
        let hummingbirdRequest = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: request.body)))
        let context = HubRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let response: Response
        do {
            response = try await router.buildResponder().respond(to: hummingbirdRequest, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: hummingbirdRequest, context: context)
        }
        let sink = BodySink()
        try await response.body.write(BodyCollector(sink: sink))
        return Answer(status: Int(response.status.code), body: sink.bytes, rowsBefore: before,
                      rowsAfter: try await tableRows())
    }

    /// The number of rows in each of the hub's tables: a refused request adds and removes none.
    /// (Not SQLite's total_changes(), which also counts the writes of a transaction rolled back.)
    private func tableRows() async throws -> [Int] {
        try await database.read { db in
            let tables = try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()
                .map { try $0.decode(column: "name", as: String.self) }
            var counts: [Int] = []
            for table in tables {
                let row = try await db.raw("SELECT count(*) AS n FROM \(ident: table)").first()
                counts.append(try row?.decode(column: "n", as: Int.self) ?? -1)
            }
            return counts
        }
    }
}

/// What the router answered.
struct Answer: Sendable {
    var status: Int
    var body: [UInt8]
    var rowsBefore: [Int]
    var rowsAfter: [Int]
}

/// A response body, gathered into `sink` (the writer itself is consumed by the body).
struct BodyCollector: ResponseBodyWriter {
    let sink: BodySink
    mutating func write(_ buffer: ByteBuffer) async throws { sink.bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Where a `BodyCollector` puts the bytes (one request at a time uses it).
final class BodySink: @unchecked Sendable {
    var bytes: [UInt8] = []
}

struct FuzzSetUpError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
