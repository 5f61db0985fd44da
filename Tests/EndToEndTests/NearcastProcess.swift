import Foundation
import XCTest

/// Runs the built `nearcast` binary as a separate process, as a user or a test harness would.
struct NearcastProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// The binary next to this test bundle (SwiftPM puts products and tests in one folder),
    /// or $NEARCAST_BIN.
    static let binary: String = {
        if let custom = ProcessInfo.processInfo.environment["NEARCAST_BIN"] { return custom }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // Inside an .xctest bundle directory on some layouts: walk up until nearcast is found.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("nearcast").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return exe.deletingLastPathComponent().appendingPathComponent("nearcast").path
    }()

    /// Runs `nearcast` with `arguments` and waits (at most `timeout` seconds).
    @discardableResult
    static func run(_ arguments: [String], timeout: TimeInterval = 120, in directory: URL? = nil) throws -> Result {
        let process = try start(arguments, in: directory)
        return try wait(process, timeout: timeout)
    }

    /// A started process and the files its output goes to (files, not pipes: a chatty child
    /// can never block on a full pipe).
    typealias Started = (process: Process, stdout: URL, stderr: URL)

    static func start(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> Started {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw NSError(domain: "nearcast", code: 1, userInfo: [NSLocalizedDescriptionKey: "no nearcast binary at \(binary): run `swift build` first"])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-out-\(UUID().uuidString)")
        let out = base.appendingPathExtension("stdout"), err = base.appendingPathExtension("stderr")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    static func wait(_ started: Started, timeout: TimeInterval = 120) throws -> Result {
        let process = started.process
        if !waitUntil(timeout: timeout, interval: 0.02, { !process.isRunning }) {
            process.terminate()
            XCTFail("nearcast \(process.arguments ?? []) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        defer {
            try? FileManager.default.removeItem(at: started.stdout)
            try? FileManager.default.removeItem(at: started.stderr)
        }
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOf: started.stdout, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: started.stderr, encoding: .utf8)) ?? "")
    }

    /// What the running daemon has written to stdout so far. Its log lines go out whole, one
    /// write(2) each (StandardStreams), so every line in the file is complete.
    static func output(of started: Started) -> String {
        (try? String(contentsOf: started.stdout, encoding: .utf8)) ?? ""
    }

    /// Waits until the daemon's stdout so far satisfies `condition`, up to `timeout` seconds, and
    /// returns that output; nil when the deadline passed or the daemon exited without it.
    static func waitForOutput(_ started: Started, timeout: TimeInterval = 20, where condition: (String) -> Bool) -> String? {
        var seen: String?
        _ = waitUntil(timeout: timeout) {
            let running = started.process.isRunning              // before reading: a last line is not missed
            let text = output(of: started)
            if condition(text) { seen = text; return true }
            return !running                                     // exited: nothing more will come
        }
        return seen
    }

    /// Waits until the daemon's stdout contains `text` (a log line, say); see ``waitForOutput(_:timeout:where:)``.
    static func waitForOutput(_ started: Started, containing text: String, timeout: TimeInterval = 20) -> String? {
        waitForOutput(started, timeout: timeout) { $0.contains(text) }
    }

    /// How many "burst #N" lines `log` holds (one per audio burst started).
    static func burstCount(in log: some StringProtocol) -> Int {
        log.components(separatedBy: "] burst #").count - 1
    }

    /// Waits until the console socket file exists (the daemon listens on it), up to `timeout` seconds.
    static func waitForConsoleSocket(_ path: String, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil(timeout: timeout) { FileManager.default.fileExists(atPath: path) },
                      "no console socket at \(path) after \(timeout) s", file: file, line: line)
    }

    /// Reads what the daemon answers on a console socket opened by ``sendConsoleLine(_:socket:)``
    /// until it contains `text`, up to `timeout` seconds; returns what was read, nil on timeout.
    static func readConsole(_ fd: Int32, until text: String, timeout: TimeInterval = 15) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let found = waitUntil(timeout: timeout, interval: 0) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) > 0 {                           // the 50 ms poll is the wait between checks
                let n = read(fd, &buffer, buffer.count)
                if n > 0 { received += buffer[0..<n] }
            }
            return String(decoding: received, as: UTF8.self).contains(text)
        }
        return found ? String(decoding: received, as: UTF8.self) : nil
    }

    /// Connects to the daemon's console socket and types `line`; returns the open socket.
    static func sendConsoleLine(_ line: String, socket path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw NSError(domain: "nearcast", code: 2, userInfo: [NSLocalizedDescriptionKey: "connect \(path): errno \(errno)"])
        }
        let bytes = Array((line + "\r").utf8)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
        return fd
    }

    /// Decoded tokens of a WAV file, from `nearcast decode --json`.
    static func decode(_ path: String) throws -> [[String: Any]] {
        let result = try run(["decode", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try result.lines.map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        }
    }
}

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds have passed;
/// true when it held (checked once more at the deadline). The end-to-end tests wait for a
/// condition with this (a line in a log, a file, a socket answering, a status field), never
/// for a fixed time: the sleep here is only the interval between checks.
func waitUntil(timeout: TimeInterval, interval: TimeInterval = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        if interval > 0 { usleep(UInt32(interval * 1_000_000)) }
    }
    return try condition()
}

/// The value held by a state file (the line between its `nearcast-state KIND VERSION` header
/// and its checksum line), failing the test when the file is not such a record.
func stateValue(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 4, lines[0].hasPrefix("nearcast-state \(url.lastPathComponent.split(separator: ".")[0]) "), lines[2].hasPrefix("crc32 ") else {
        XCTFail("\(url.path) is not a state record: \(lines)", file: file, line: line)
        return ""
    }
    return String(lines[1])
}

/// A temporary directory for one test.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
