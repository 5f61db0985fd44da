import Glibc
import NearcastSystemd
import XCTest

/// The notifier against a test that is "systemd": a datagram socket bound where
/// `$NOTIFY_SOCKET` points, read back here.
final class SystemdNotifierTests: XCTestCase {
    func testNotificationsArriveAsOneDatagramOfLines() throws {
        let listener = try DatagramListener()
        let notifier = try SystemdNotifier(socketPath: listener.path)
        XCTAssertTrue(notifier.send(.ready, .status("serving https://0.0.0.0:443")))
        XCTAssertEqual(listener.receive(), "READY=1\nSTATUS=serving https://0.0.0.0:443")
        XCTAssertTrue(notifier.send(.watchdog))
        XCTAssertEqual(listener.receive(), "WATCHDOG=1")
        XCTAssertTrue(notifier.send(.stopping, .status("stopping (SIGTERM)")))
        XCTAssertEqual(listener.receive(), "STOPPING=1\nSTATUS=stopping (SIGTERM)")
    }

    func testReloadingCarriesTheMonotonicTime() throws {
        XCTAssertEqual(SystemdNotification.reloading(monotonicMicroseconds: 1_234_567).description,
                       "RELOADING=1\nMONOTONIC_USEC=1234567")
        let before = SystemdClock.monotonicMicroseconds()
        let text = SystemdNotification.reloading().description
        let stamp = try XCTUnwrap(UInt64(text.split(separator: "=").last ?? ""))
        XCTAssertGreaterThanOrEqual(stamp, before)
    }

    /// A status is one line: a line break in it cannot smuggle in another key.
    func testStatusStaysOneLine() {
        XCTAssertEqual(SystemdNotification.status("audio ok\nREADY=1").description, "STATUS=audio ok READY=1")
    }

    func testAnAddressTooLongIsATypedErrorNamingTheSocket() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        XCTAssertThrowsError(try SystemdNotifier(socketPath: path)) { error in
            XCTAssertEqual((error as? SystemdNotifierError)?.code, ENAMETOOLONG)
            XCTAssertTrue("\(error)".hasPrefix("address NOTIFY_SOCKET=/tmp/xxx"), "\(error)")
            XCTAssertTrue("\(error)".hasSuffix("File name too long (errno \(ENAMETOOLONG))"), "\(error)")
        }
    }

    /// Nobody listening: the send fails and says so, and nothing is thrown or signalled.
    func testASendNobodyHearsReturnsFalse() throws {
        let notifier = try SystemdNotifier(socketPath: "/tmp/nearcast-no-such-notify-socket-\(getpid())")
        XCTAssertFalse(notifier.send(.ready))
    }

    func testFromEnvironmentIsNilWithoutSystemdAndReadsTheWatchdog() throws {
        unsetenv("NOTIFY_SOCKET")
        XCTAssertNil(try SystemdNotifier.fromEnvironment())
        let listener = try DatagramListener()
        setenv("NOTIFY_SOCKET", listener.path, 1)
        setenv("WATCHDOG_USEC", "3000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer { for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) } }
        let notifier = try XCTUnwrap(try SystemdNotifier.fromEnvironment())
        XCTAssertEqual(notifier.watchdogInterval, 1.5)
        setenv("WATCHDOG_PID", "1", 1)                    // another process is to ping
        XCTAssertNil(try XCTUnwrap(try SystemdNotifier.fromEnvironment()).watchdogInterval)
    }
}

/// A bound datagram socket in a fresh directory, for the notifier to send to.
private final class DatagramListener {
    let path: String
    private let directory: String
    private let descriptor: Int32

    init() throws {
        var template = Array("/tmp/nearcast-notify-XXXXXX".utf8CString)
        directory = String(cString: try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }))
        path = directory + "/notify"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
    }

    deinit {
        close(descriptor)
        unlink(path)
        rmdir(directory)
    }

    /// The next datagram's text (waiting up to a second), or nil.
    func receive() -> String? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 1_000) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
