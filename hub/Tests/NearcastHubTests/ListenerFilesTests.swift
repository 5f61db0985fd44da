import Foundation
@testable import NearcastHub
import XCTest

/// The listener page's files: read once, only the page's kinds of file, found from where the
/// executable runs; the HTTP side (headers, 404s, the page in Chromium) is hub/e2e/test_listener.py.
final class ListenerFilesTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("listener-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func write(_ name: String, in directory: URL, _ text: String = "x") throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    func testThePageIsReadWithItsTypesAndNothingElse() throws {
        let page = root.appendingPathComponent("web")
        for name in ["listen.html", "listener.js", "nearcast-modem.wasm", "listener.css", "notes.txt", ".env",
                     "x:y.js", "{a}.js", ".hidden.js"] {
            try write(name, in: page)
        }
        let files = try ListenerFiles(directory: page.path)
        XCTAssertEqual(files.files.keys.sorted(), ["listen.html", "listener.css", "listener.js", "nearcast-modem.wasm"])
        XCTAssertEqual(files.files["nearcast-modem.wasm"]?.contentType, "application/wasm")
        XCTAssertEqual(files.files["listener.js"]?.contentType, "text/javascript; charset=utf-8")
    }

    func testADirectoryWithoutThePageIsRefusedNamingWhatIsMissing() throws {
        let page = root.appendingPathComponent("half")
        try write("listen.html", in: page)
        XCTAssertThrowsError(try ListenerFiles(directory: page.path)) {
            XCTAssertEqual("\($0)", "\(page.path) lacks listener.js, nearcast-modem.wasm (build the page with tools/setup/build-web)")
        }
        XCTAssertThrowsError(try ListenerFiles(directory: root.appendingPathComponent("absent").path)) {
            XCTAssertTrue("\($0)".hasSuffix("absent is not a directory"))
        }
    }

    func testThePageIsFoundInTheCheckoutTheExecutableRunsFrom() throws {
        // <checkout>/hub/.build/debug/nearcast-hub finds <checkout>/.build/web, once the
        // directory is a checkout (not any directory above that happens to hold .build/web).
        let web = root.appendingPathComponent(".build/web")
        for name in ListenerFiles.required { try write(name, in: web) }
        let executable = root.appendingPathComponent("hub/.build/debug/nearcast-hub")
        try write("nearcast-hub", in: executable.deletingLastPathComponent())
        XCTAssertNil(ListenerFiles.find(fromExecutable: executable.path))
        try write("Package.swift", in: root.appendingPathComponent("hub"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Sources/NearcastCore"), withIntermediateDirectories: true)
        XCTAssertEqual(ListenerFiles.find(fromExecutable: executable.path)?.directory, web.path)
        // Installed: <prefix>/bin/nearcast-hub finds <prefix>/share/nearcast-hub/listener first.
        let prefix = root.appendingPathComponent("usr")
        let installed = prefix.appendingPathComponent("share/nearcast-hub/listener")
        for name in ListenerFiles.required { try write(name, in: installed) }
        try write("nearcast-hub", in: prefix.appendingPathComponent("bin"))
        XCTAssertEqual(ListenerFiles.find(fromExecutable: prefix.appendingPathComponent("bin/nearcast-hub").path)?.directory,
                       installed.path)
        XCTAssertNil(ListenerFiles.find(fromExecutable: "/nonexistent/bin/nearcast-hub"))
    }
}
