import Foundation
import XCTest

/// The HCI advertiser against a real BLE stack: PyPI's Bumble runs a controller behind a
/// pseudo-terminal (H4, as a UART controller speaks) and a second controller and host on the
/// same virtual radio link that scan. Nearcast's daemon drives the first through its H4
/// driver; what the scanner hears is what a phone would.
final class BumbleControllerEndToEndTests: XCTestCase {
    private static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// A running tools/run/bumble-peer: its advertisement lines, collected as they come.
    private final class Peer: @unchecked Sendable {             // buffer guarded by lock
        let process = Process()
        private let input = Pipe(), output = Pipe()
        private var buffer = Data()
        private let lock = NSLock()

        init(link: URL, advertising: String? = nil) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", BumbleControllerEndToEndTests.repository.appendingPathComponent("tools/run/bumble-peer").path,
                                 "--link", link.path] + (advertising.map { ["--advertise", $0] } ?? [])
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            output.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self else { return }
                self.lock.lock()
                self.buffer.append(data)
                self.lock.unlock()
            }
            try process.run()
        }

        var lines: [[String: Any]] {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: buffer, as: UTF8.self).split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        var advertisements: [[String: Any]] { lines.filter { $0["data"] != nil } }

        func waitUntilScanning(timeout: TimeInterval = 60) -> Bool {
            var scanning = false
            _ = waitUntil(timeout: timeout, interval: 0.1) {
                scanning = lines.contains { $0["scanning"] as? Bool == true }
                return scanning || !process.isRunning
            }
            return scanning
        }

        /// Waits until `condition` holds for what the scanner heard, up to `timeout` seconds.
        func waitUntilHeard(timeout: TimeInterval, _ condition: ([[String: Any]]) -> Bool) -> Bool {
            waitUntil(timeout: timeout, interval: 0.1) { condition(advertisements) }
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    private func board(in dir: URL, device: URL) throws -> URL {
        let file = dir.appendingPathComponent("h4board.json5")
        try """
            {
              name: "h4test", description: "sim audio and LEDs, a Bumble controller over H4",
              gpio: { driver: "sim", chip: "sim", lines: 8 },
              leds: { status: { line: 0 }, audio: { line: 1 }, ble: { line: 2 }, consent: { line: 3 } },
              audio: { output: { driver: "wav", device: "audio.wav", rate: 48000, period: 960 } },
              bluetooth: { driver: "h4", device: "\(device.path)", baud: 115200 },
              console: { tty: "stdio", baud: 115200 },
              consent: "granted",
            }
            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    private func expectedFrame(_ hex: String) throws -> String {
        let result = try NearcastProcess.run(["ble-frame", "--payload", hex, "--tx-power", "-12"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheScannerHearsEachPublicationFromItsOwnRandomAddressAndNothingAfterStop() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("controller")
        let peer = try Peer(link: link)
        defer { peer.stop() }
        XCTAssertTrue(peer.waitUntilScanning(), "bumble-peer did not start (tools/setup/install-deps installs bumble): \(peer.lines)")
        let daemon = try NearcastProcess.run(["run", "--board", try board(in: dir, device: link).path, "--state-dir", dir.path,
                                              "--publish", "direct:c0ffee@ble", "--publish", "direct:beef@ble", "--duration", "3"])
        XCTAssertEqual(daemon.status, 0, daemon.stderr)
        XCTAssertTrue(daemon.stdout.contains("extended advertising, 8 sets"), daemon.stdout)
        let expected: Set = [try expectedFrame("c0ffee"), try expectedFrame("beef")]
        _ = peer.waitUntilHeard(timeout: 10) { expected.isSubset(of: $0.compactMap { $0["data"] as? String }) }
        let heard = peer.advertisements
        let frames = Set(heard.compactMap { $0["data"] as? String })
        XCTAssertTrue(frames.contains(try expectedFrame("c0ffee")), "\(frames)")
        XCTAssertTrue(frames.contains(try expectedFrame("beef")), "\(frames)")
        // Each publication on its own set, from its own non-resolvable private address.
        var addresses: [String: Set<String>] = [:]
        for ad in heard {
            addresses[ad["data"] as? String ?? "", default: []].insert(ad["address"] as? String ?? "")
            XCTAssertEqual(ad["address_type"] as? Int, 1, "a random address")
            let first = UInt8(String((ad["address"] as? String ?? "00").prefix(2)), radix: 16) ?? 0xFF
            XCTAssertEqual(first >> 6, 0, "non-resolvable private: the top two bits are 00: \(ad)")
        }
        XCTAssertEqual(addresses[try expectedFrame("c0ffee")]?.count, 1)
        XCTAssertNotEqual(addresses[try expectedFrame("c0ffee")], addresses[try expectedFrame("beef")])
        // The daemon disabled its sets when it stopped: the scanner hears nothing more. Once the
        // reports already on their way have been printed (no new one for half a second), an
        // absence is asserted, and an absence can only be observed over a fixed window: 1.5 s,
        // more than a dozen advertising intervals.
        var last = -1
        XCTAssertTrue(waitUntil(timeout: 20, interval: 0.5) {
            let now = peer.advertisements.count
            defer { last = now }
            return now == last
        }, "advertising continued after the daemon stopped")
        let settled = peer.advertisements.count
        usleep(1_500_000)                                       // the observation window (see above)
        XCTAssertEqual(peer.advertisements.count, settled, "advertising continued after the daemon stopped")
    }

    /// `--subscribe ble` on a board with a real controller: it scans, and the peer's beacon
    /// (advertised by Bumble's host, a different stack) is found through LE advertising reports.
    func testTheDaemonScansThroughTheControllerAndFindsAnotherStacksBeacon() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("controller")
        let peer = try Peer(link: link, advertising: try expectedFrame("c0ffee"))
        defer { peer.stop() }
        XCTAssertTrue(peer.waitUntilScanning(), "bumble-peer did not start: \(peer.lines)")
        let daemon = try NearcastProcess.run(["run", "--board", try board(in: dir, device: link).path, "--state-dir", dir.path,
                                              "--publish", "direct:beef@ble", "--subscribe", "ble", "--duration", "3"])
        XCTAssertEqual(daemon.status, 0, daemon.stderr)
        XCTAssertTrue(daemon.stdout.contains("listening over ble: the controller scans"), daemon.stdout)
        XCTAssertTrue(daemon.stdout.contains("found direct c0ffee over ble"), daemon.stdout)
        XCTAssertFalse(daemon.stdout.contains("error"), daemon.stdout)
        XCTAssertTrue(peer.advertisements.contains { $0["data"] as? String == (try? self.expectedFrame("beef")) },
                      "it kept advertising while scanning")
    }

    func testAControllerThatGoesAwayIsReportedAndAdvertisingComesBackWithIt() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("controller")
        var peer = try Peer(link: link)
        XCTAssertTrue(peer.waitUntilScanning(), "bumble-peer did not start: \(peer.lines)")
        let daemon = try NearcastProcess.start(["run", "--board", try board(in: dir, device: link).path, "--state-dir", dir.path,
                                                "--publish", "direct:c0ffee@ble"])
        let frame = try expectedFrame("c0ffee")
        XCTAssertTrue(peer.waitUntilHeard(timeout: 20) { $0.contains { $0["data"] as? String == frame } })
        peer.stop()                                             // the controller vanishes
        try? FileManager.default.removeItem(at: link)
        // The daemon reports it gone (and its retries find no device) before it comes back.
        XCTAssertNotNil(NearcastProcess.waitForOutput(daemon, containing: "error: no bluetooth adapter: ", timeout: 30),
                        NearcastProcess.output(of: daemon))
        peer = try Peer(link: link)                             // and comes back, on a new pty
        defer { peer.stop() }
        XCTAssertTrue(peer.waitUntilScanning())
        XCTAssertTrue(peer.waitUntilHeard(timeout: 40) { $0.contains { $0["data"] as? String == frame } },
                      "advertising resumed on the new controller")
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try NearcastProcess.wait(daemon, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("error: no bluetooth adapter: "), result.stdout)
        XCTAssertTrue(result.stdout.contains("ble=fast-blink"), "the ble LED showed the missing adapter: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("bluetooth: controller back after"), result.stdout)
    }
}
