import Foundation
import XCTest

/// A pseudo-terminal pair: the daemon opens the slave side as its serial console, the test
/// types on the master side like a technician's USB-serial cable.
final class PseudoTerminal {
    let master: Int32
    let slavePath: String
    private var received: [UInt8] = []

    init() throws {
        // /dev/ptmx by hand (posix_openpt and friends are not in Swift's Glibc module):
        // TIOCSPTLCK unlocks the slave, TIOCGPTN gives its number.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw NSError(domain: "pty", code: Int(errno))
        }
        slavePath = "/dev/pts/\(number)"
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(master) }

    func type(_ text: String) { send(Array(text.utf8)) }

    /// Sends all of `bytes`; false when the other side went away or stopped reading for 30 s.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        var lastProgress = Date()
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(master, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 {
                offset += n
                lastProgress = Date()
            } else if n < 0 && errno != EAGAIN && errno != EINTR {
                return false                                    // EIO: the slave side is closed
            } else if Date().timeIntervalSince(lastProgress) > 30 {
                return false
            } else {
                drain()
                usleep(2_000)
            }
        }
        return true
    }

    /// Reads what the daemon wrote so far.
    @discardableResult
    func drain() -> String {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits until the output after byte `from` contains `text`, up to `timeout` seconds; returns
    /// that output.
    func wait(for text: String, after from: Int = 0, timeout: TimeInterval = 10) -> String? {
        wait(forAnyOf: [text], after: from, timeout: timeout)?.output
    }

    /// Waits until the output after byte `from` contains one of `texts`, up to `timeout` seconds;
    /// returns the first of them found and that output.
    func wait(forAnyOf texts: [String], after from: Int = 0, timeout: TimeInterval = 10) -> (found: String, output: String)? {
        var result: (String, String)?
        _ = waitUntil(timeout: timeout, interval: 0.02) {
            drain()
            let tail = String(decoding: received[min(from, received.count)...], as: UTF8.self)
            result = texts.first { tail.contains($0) }.map { ($0, tail) }
            return result != nil
        }
        return result
    }

    /// Waits until nothing more arrives for `quiet` seconds (the other side has caught up with
    /// what was sent), up to `timeout` seconds; false when the output never settled. The quiet
    /// window is an observation of an absence, so it is a fixed time by nature.
    func waitUntilSettled(quiet: TimeInterval = 0.5, timeout: TimeInterval = 120) -> Bool {
        var last = -1
        return waitUntil(timeout: timeout, interval: quiet) {
            let now = length
            defer { last = now }
            return now == last
        }
    }

    /// Types `line` and a CR, and waits for `reply` in what follows.
    func command(_ line: String, expecting reply: String, file: StaticString = #filePath, line number: UInt = #line) {
        let mark = length
        type(line + "\r")
        XCTAssertNotNil(wait(for: reply, after: mark), "\(line): \(screen)", file: file, line: number)
    }

    /// Bytes received so far (a mark for ``wait(for:after:timeout:)``).
    var length: Int { drain(); return received.count }

    var screen: String { drain() }
}
