import Glibc
import NearcastSystemd
import NotifySocketSupport
import XCTest

/// The notifier against a test that is "systemd": a datagram socket bound where
/// `$NOTIFY_SOCKET` points, read back here.
final class SystemdNotifierTests: XCTestCase {
    func testNotificationsArriveAsOneDatagramOfLines() throws {
        let listener = try NotifySocketListener()
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
        let listener = try NotifySocketListener()
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
