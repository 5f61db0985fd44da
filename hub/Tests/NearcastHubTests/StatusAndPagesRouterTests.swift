import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import Prometheus
import XCTest

/// The routes that need no key, through the router in memory and over SQLite: the operators'
/// page, `/healthz`, `/metrics`, and the listener, check and Present pages with the headers that
/// make them cross-origin isolated. (A real browser on them is hub/e2e/test_listener.py's and the
/// Present tests'; the security headers on every answer are test_security_headers.py's.)
final class StatusAndPagesRouterTests: XCTestCase {
    func testTheOperatorsPageAndItsFilesAreServedWithoutAKey() async throws {
        try await RouterWorld.each { _, client, _ in
            let page = try await client.call(.get, "/")
            XCTAssertEqual(page.status, .ok)
            XCTAssertEqual(page.headers[.contentType], "text/html; charset=utf-8")
            XCTAssertTrue(page.text.contains("<title>Nearcast hub</title>"), page.text)
            XCTAssertTrue(page.text.contains("id=\"reach-section\""), "the rooms' reach beside the field checks")
            for (path, type) in [(StatusPage.stylePath, "text/css"), (StatusPage.scriptPath, "text/javascript"),
                                 (StatusReachSection.scriptPath, "text/javascript"), (NoticePage.stylePath, "text/css")] {
                let file = try await client.call(.get, path)
                XCTAssertEqual(file.status, .ok, path)
                XCTAssertEqual(file.headers[.contentType], type + "; charset=utf-8", path)
                XCTAssertFalse(file.bytes.isEmpty, path)
            }
        }
    }

    func testHealthzSaysTheDatabaseAnswersAndWhichItIs() async throws {
        try await RouterWorld.each { _, client, storage in
            let health = try await client.call(.get, "/healthz")
            XCTAssertEqual(health.status, .ok, health.text)
            XCTAssertEqual(health.json["status"] as? String, "ok")
            XCTAssertEqual(health.json["database"] as? String, storage == .memory ? "memory" : "sqlite", "a memory hub opens no database")
            XCTAssertEqual(health.json["watches"] as? String, "0")
            XCTAssertEqual(health.json["eidTableEntries"] as? String, "0")
        }
    }

    /// The database gone: 503 in the error shape, and the reason stays in the log.
    func testHealthzIsA503WhenTheDatabaseIsGone() async throws {
        let world = try await RouterWorld.make(.sqlite)
        defer { try? FileManager.default.removeItem(at: world.directory) }
        await world.hub.present.showFeed.stop()   // its reads done before the database closes
        await world.hub.backend.close()
        try await Application(router: buildRouter(world.hub)).test(.router) { client in
            let health = try await client.call(.get, "/healthz")
            assertRefusal(health, .serviceUnavailable)
            XCTAssertEqual(health.error["message"] as? String, "the database does not answer")
        }
    }

    func testMetricsEmitTheRegistryAndAreA404WithoutOne() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "nearcast_router_test_total").increment(by: Int64(3))
        try await RouterWorld.each(metrics: registry) { _, client, _ in
            let metrics = try await client.call(.get, "/metrics")
            XCTAssertEqual(metrics.status, .ok)
            XCTAssertEqual(metrics.headers[.contentType], "text/plain; version=0.0.4; charset=utf-8")
            XCTAssertTrue(metrics.text.contains("nearcast_router_test_total 3"), metrics.text)
        }
        try await RouterWorld.each([.memory]) { _, client, _ in
            assertRefusal(try await client.call(.get, "/metrics"), .notFound)
        }
    }

    func testWithoutTheListenerFilesListenSaysHowToBuildThem() async throws {
        try await RouterWorld.each([.memory]) { _, client, _ in
            let listen = try await client.call(.get, "/listen")
            XCTAssertEqual(listen.status, .notFound)
            XCTAssertTrue(listen.text.contains("tools/setup/build-web"), listen.text)
            assertStatus(try await client.call(.get, "/listener-hub.json"), .notFound, "no page, no claim to be its hub")
        }
    }

    /// Each page under its short name and its file name, cross-origin isolated (or a browser
    /// gives the page no SharedArrayBuffer), and nothing but the files that were read.
    func testThePagesAreServedCrossOriginIsolatedUnderTheirNames() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let contents = ["listen.html": "<p>listen</p>", "present.html": "<p>present</p>", "check.html": "<p>check</p>",
                        "listener.js": "// the page", "nearcast-modem.wasm": "\0asm", "notes.txt": "not served"]
        for (name, text) in contents { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        let listener = try ListenerFiles(directory: directory.path)
        try await RouterWorld.each(listener: listener, [.memory]) { _, client, _ in
            for (path, file) in [("/listen", "listen.html"), ("/present", "present.html"), ("/check", "check.html"),
                                 ("/listen.html", "listen.html"), ("/listener.js", "listener.js"),
                                 ("/nearcast-modem.wasm", "nearcast-modem.wasm")] {
                let answer = try await client.call(.get, path)
                XCTAssertEqual(answer.status, .ok, path)
                XCTAssertEqual(answer.text, contents[file], path)
                XCTAssertEqual(answer.headers[HTTPField.Name("Cross-Origin-Opener-Policy")!], "same-origin", path)
                XCTAssertEqual(answer.headers[HTTPField.Name("Cross-Origin-Embedder-Policy")!], "require-corp", path)
                XCTAssertEqual(answer.headers[.cacheControl], "no-cache", path)
            }
            let wasm = try await client.call(.get, "/nearcast-modem.wasm")
            XCTAssertEqual(wasm.headers[.contentType], "application/wasm")
            let claim = try await client.call(.get, "/listener-hub.json")
            XCTAssertEqual(claim.json["servedByHub"] as? Bool, true, claim.text)
            XCTAssertEqual(claim.headers[HTTPField.Name("Cross-Origin-Embedder-Policy")!], "require-corp")
            assertRefusal(try await client.call(.get, "/notes.txt"), .notFound)
        }
    }
}
