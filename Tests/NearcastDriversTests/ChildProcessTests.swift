import NearcastDrivers
import XCTest

/// The helper processes the hub client starts, polled without blocking.
final class ChildProcessTests: XCTestCase {
    /// Polls as the daemon does, up to 5 s.
    private func waitForExit(_ child: ChildProcess) throws -> ChildProcess.Status? {
        for _ in 0..<500 {
            if let status = try child.poll() { return status }
            usleep(10_000)
        }
        return nil
    }

    func testOutputAndExitStatusAreCollectedAfterItEnds() throws {
        let directory = TemporaryDirectory()
        let child = try ChildProcess(arguments: ["/bin/sh", "-c", "echo out; echo err >&2; exit 3"],
                                     stdout: directory.file("out"), stderr: directory.file("err"))
        let status = try waitForExit(child)
        XCTAssertEqual(status, .exited(3))
        XCTAssertEqual(try FileSystem.readText(directory.file("out")), "out\n")
        XCTAssertEqual(try FileSystem.readText(directory.file("err")), "err\n")
        XCTAssertEqual(try child.poll(), .exited(3), "a reaped child keeps its status")
    }

    /// The child gets none of the daemon's descriptors and no blocked signals.
    func testTheChildInheritsNoDescriptorsAndNoBlockedSignals() throws {
        let directory = TemporaryDirectory()
        let leaked = open(directory.file("open-in-parent"), O_WRONLY | O_CREAT, 0o600)   // no O_CLOEXEC
        defer { close(leaked) }
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let shell = try ChildProcess(arguments: ["/bin/sh", "-c", "ls /proc/$$/fd"],
                                     stdout: directory.file("fds"), stderr: directory.file("err"))
        XCTAssertEqual(try waitForExit(shell), .exited(0))
        let descriptors = try FileSystem.readText(directory.file("fds")).split(separator: "\n").map(String.init)
        XCTAssertEqual(descriptors.filter { Int($0) != nil }, ["0", "1", "2"], "only stdin, stdout and stderr")
        // grep reads its own mask, as posix_spawn left it: a shell's mask is not the child's, since
        // dash blocks every signal for a moment around each fork (a reader of /proc/$$ can see that).
        let grep = try ChildProcess(arguments: ["/bin/grep", "SigBlk", "/proc/self/status"],
                                    stdout: directory.file("mask"), stderr: directory.file("err"))
        XCTAssertEqual(try waitForExit(grep), .exited(0))
        XCTAssertEqual(try FileSystem.readText(directory.file("mask")), "SigBlk:\t0000000000000000\n")
    }

    func testAHangingChildIsKilledAndAMissingProgramIsAnError() throws {
        let directory = TemporaryDirectory()
        let child = try ChildProcess(arguments: ["/bin/sleep", "30"], stdout: directory.file("out"), stderr: directory.file("err"))
        XCTAssertNil(try child.poll(), "still running: poll does not wait")
        child.kill()
        XCTAssertEqual(try child.poll(), .signalled(SIGKILL))
        XCTAssertThrowsError(try ChildProcess(arguments: ["/nonexistent/program"], stdout: directory.file("out"), stderr: directory.file("err"))) {
            XCTAssertTrue("\($0)".contains("/nonexistent/program"), "\($0)")
        }
        XCTAssertNotNil(ChildProcess.find("sh"))
        XCTAssertNil(ChildProcess.find("no-such-program-here"))
    }

    /// The box's side of Eddystone registration: a fresh key pair each time, and a low-order
    /// service key refused. That the hub derives the same identity key is proved end to end by
    /// hub/tests/test_box.py (the hub checks the box's initial EID against its own derivation).
    func testTheKeyExchangeMakesFreshKeysAndRefusesLowOrderPoints() throws {
        let service = Array(repeating: UInt8(9), count: 32)   // the X25519 base point's u-coordinate
        let first = try EddystoneKeyExchange.derive(servicePublicKey: service)
        let second = try EddystoneKeyExchange.derive(servicePublicKey: service)
        XCTAssertNotEqual(first.beaconPublicKey, second.beaconPublicKey)
        XCTAssertEqual(first.identityKey.count, 16)
        XCTAssertThrowsError(try EddystoneKeyExchange.derive(servicePublicKey: Array(repeating: 0, count: 32))) {
            XCTAssertEqual($0 as? EddystoneKeyExchange.Failure, .lowOrderKey)
        }
        XCTAssertThrowsError(try EddystoneKeyExchange.derive(servicePublicKey: [1, 2]))
    }
}
