import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import NIOConcurrencyHelpers
import XCTest

/// A schedule imported from its conference tool's address (`PUT /v1/schedule/source`) and kept
/// in step with it (`ScheduleRefresher`), against a real HTTP server on a real socket that serves
/// the export with an ETag and answers 304 to an unchanged one.
final class ScheduleRefreshTests: XCTestCase {
    /// What the conference tool serves: a CSV and its version.
    final class Tool: Sendable {
        let file = NIOLockedValueBox((text: ScheduleRouterTests.day, version: 1, status: HTTPResponse.Status.ok))
        let fetches = NIOLockedValueBox(0)

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("/schedule.csv") { [self] request, _ in
                fetches.withLockedValue { $0 += 1 }
                let (text, version, status) = file.withLockedValue { $0 }
                let etag = "\"v\(version)\""
                guard status == .ok else { return Response(status: status) }
                if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: [.eTag: etag]) }
                return Response(status: .ok, headers: [.contentType: "text/csv", .eTag: etag],
                                body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            return router
        }
    }

    func testAScheduleFromAnAddressIsKeptInStepWithIt() async throws {
        let tool = Tool()
        let server = Application(router: tool.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { served in
            let url = "http://127.0.0.1:\(try XCTUnwrap(served.port))/schedule.csv"
            let clock = ScheduleRouterTests.SetClock()
            try await RouterWorld.each(clock: clock.clock) { world, client, storage in
                clock.set("2026-11-28T08:00:00Z")
                tool.file.withLockedValue { $0 = (ScheduleRouterTests.day, 1, .ok) }
                let answer = try await client.call(.put, "/v1/schedule/source", key: world.demo.secretKey,
                                                   json: ["url": url, "everyMinutes": 5, "timeZone": "Europe/Berlin"])
                assertStatus(answer, .ok, storage.rawValue)
                XCTAssertEqual(answer.json["talks"] as? Int, 3)
                func summary() async throws -> [String: Any] {
                    try await client.call(.get, "/v1/schedule", key: world.demo.secretKey).json
                }
                var now = try await summary()
                var refresh = try XCTUnwrap(now["refresh"] as? [String: Any])
                XCTAssertEqual(refresh["url"] as? String, url)
                XCTAssertEqual(refresh["everyMinutes"] as? Int, 5)
                let refresher = ScheduleRefresher(schedules: world.hub.repositories.schedules, fetcher: ScheduleFetcher(),
                                                  logger: world.hub.logger)
                // Not due yet; then due, unchanged (a 304: nothing imported).
                var refreshed = await refresher.tick(nowMs: world.hub.clock.nowMs())
                XCTAssertEqual(refreshed, [])
                clock.set("2026-11-28T08:05:00Z")
                refreshed = await refresher.tick(nowMs: world.hub.clock.nowMs())
                XCTAssertEqual(refreshed, ["demo"])
                now = try await summary()
                refresh = try XCTUnwrap(now["refresh"] as? [String: Any])
                XCTAssertEqual(refresh["lastCheckedAt"] as? String, "2026-11-28T08:05:00.000Z")
                XCTAssertEqual((now["lastChange"] as? [String: Any])?["added"] as? Int, 3, "the 304 imported nothing")
                // The tool moves a talk: the next refresh imports it.
                tool.file.withLockedValue { $0 = (ScheduleRouterTests.day.replacingOccurrences(of: "11:00,30,Second", with: "11:15,30,Second"), 2, .ok) }
                clock.set("2026-11-28T08:10:00Z")
                refreshed = await refresher.tick(nowMs: world.hub.clock.nowMs())
                XCTAssertEqual(refreshed, ["demo"])
                now = try await summary()
                XCTAssertEqual((now["lastChange"] as? [String: Any])?["moved"] as? Int, 1)
                // The tool breaks (a clash, then a 500): the schedule in force stays, and says why.
                tool.file.withLockedValue { $0 = (ScheduleRouterTests.day + "\n4,2026-11-28,Hall A,10:30,30,Clash,\n", 3, .ok) }
                clock.set("2026-11-28T08:15:00Z")
                _ = await refresher.tick(nowMs: world.hub.clock.nowMs())
                now = try await summary()
                XCTAssertEqual(now["talks"] as? Int, 3)
                XCTAssertTrue(((now["refresh"] as? [String: Any])?["lastError"] as? String ?? "").contains("line 5"), "\(now)")
                tool.file.withLockedValue { $0.status = .internalServerError }
                clock.set("2026-11-28T08:20:00Z")
                _ = await refresher.tick(nowMs: world.hub.clock.nowMs())
                now = try await summary()
                XCTAssertEqual(now["talks"] as? Int, 3)
                XCTAssertTrue(((now["refresh"] as? [String: Any])?["lastError"] as? String ?? "").contains("500"), "\(now)")
                // Stopped: no more fetches.
                assertStatus(try await client.call(.delete, "/v1/schedule/source", key: world.demo.secretKey), .ok)
                let before = tool.fetches.withLockedValue { $0 }
                clock.set("2026-11-28T09:00:00Z")
                refreshed = await refresher.tick(nowMs: world.hub.clock.nowMs())
                XCTAssertEqual(refreshed, [])
                XCTAssertEqual(tool.fetches.withLockedValue { $0 }, before)
            }
        }
    }

    func testAnAddressThatCannotBeFetchedIsRefusedAndStoresNothing() async throws {
        let server = Application(router: Tool().router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await server.test(.live) { served in
            let missing = "http://127.0.0.1:\(try XCTUnwrap(served.port))/nothing-here.json"
            try await RouterWorld.each { world, client, _ in
                assertRefusal(try await client.call(.put, "/v1/schedule/source", key: world.demo.secretKey,
                                                    json: ["url": "ftp://example.org/schedule.json"]), .badRequest, field: "url")
                assertRefusal(try await client.call(.put, "/v1/schedule/source", key: world.demo.secretKey,
                                                    json: ["url": missing]), .badGateway, field: "url")
                // Nothing listens on the discard port: the connection is refused, named, and not retried.
                let refused = try await client.call(.put, "/v1/schedule/source", key: world.demo.secretKey,
                                                    json: ["url": "http://127.0.0.1:9/schedule.json"])
                assertRefusal(refused, .badGateway, field: "url")
                XCTAssertTrue(refused.text.contains("could not be fetched"), refused.text)
                assertRefusal(try await client.call(.put, "/v1/schedule/source", key: world.demo.secretKey,
                                                    json: ["url": "http://127.0.0.1:9/x", "everyMinutes": 5000]), .badRequest, field: "everyMinutes")
                let summary = try await client.call(.get, "/v1/schedule", key: world.demo.secretKey).json
                XCTAssertNil(summary["refresh"], "\(summary)")
                XCTAssertEqual(summary["talks"] as? Int, 0)
            }
        }
    }
}
