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
        let child = try ChildProcess(arguments: ["/bin/sh", "-c", "echo out; echo err >&2; exit 3"])
        let status = try waitForExit(child)
        XCTAssertEqual(status, .exited(3))
        XCTAssertEqual(String(decoding: child.output, as: UTF8.self), "out\n")
        XCTAssertEqual(String(decoding: child.errors, as: UTF8.self), "err\n")
        XCTAssertEqual(try child.poll(), .exited(3), "a reaped child keeps its status")
    }

    /// The input goes in a little at a time, as the pipe takes it: 1 MiB is sixteen pipefuls,
    /// more than one poll can write, and the output (the same MiB back) more than one can read.
    func testLargeInputAndOutputGoThroughThePipesWithoutBlocking() throws {
        let input = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let child = try ChildProcess(arguments: ["/bin/cat"], input: input, outputLimit: 2 << 20)
        XCTAssertEqual(try waitForExit(child), .exited(0))
        XCTAssertEqual(child.output.count, input.count)
        XCTAssertTrue(child.output == input, "what cat read is what it was given")
        XCTAssertFalse(child.outputOverflowed)
    }

    /// A child that writes more than the limit is killed, not read for ever.
    func testOutputBeyondTheLimitKillsTheChild() throws {
        let child = try ChildProcess(arguments: ["/bin/sh", "-c", "yes nearcast"], outputLimit: 100_000)
        let status = try waitForExit(child)
        XCTAssertEqual(status, .signalled(SIGKILL))
        XCTAssertTrue(child.outputOverflowed)
        XCTAssertEqual(child.output.count, 100_000)
    }

    /// A child that ends without reading its input: the write fails with EPIPE (no SIGPIPE
    /// ends the test process) and the exit status is what counts.
    func testAChildThatIgnoresItsInputDoesNotBreakTheParent() throws {
        let child = try ChildProcess(arguments: ["/bin/true"], input: Array(repeating: 0x41, count: 1 << 20))
        XCTAssertEqual(try waitForExit(child), .exited(0))
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
        let shell = try ChildProcess(arguments: ["/bin/sh", "-c", "ls /proc/$$/fd"])
        XCTAssertEqual(try waitForExit(shell), .exited(0))
        let descriptors = String(decoding: shell.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(descriptors.filter { Int($0) != nil }, ["0", "1", "2"], "only stdin, stdout and stderr")
        // grep reads its own mask, as posix_spawn left it: a shell's mask is not the child's, since
        // dash blocks every signal for a moment around each fork (a reader of /proc/$$ can see that).
        let grep = try ChildProcess(arguments: ["/bin/grep", "SigBlk", "/proc/self/status"])
        XCTAssertEqual(try waitForExit(grep), .exited(0))
        XCTAssertEqual(String(decoding: grep.output, as: UTF8.self), "SigBlk:\t0000000000000000\n")
    }

    func testAHangingChildIsKilledAndAMissingProgramIsAnError() throws {
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))
        let child = try ChildProcess(arguments: ["/bin/sleep", "30"])
        XCTAssertNil(try child.poll(), "still running: poll does not wait")
        child.kill()
        XCTAssertEqual(try child.poll(), .signalled(SIGKILL))
        XCTAssertThrowsError(try ChildProcess(arguments: ["/nonexistent/program"])) {
            XCTAssertTrue("\($0)".contains("/nonexistent/program"), "\($0)")
        }
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))
        // Only pipes count: the test harness may open a file or socket of its own meanwhile (an
        // fd appeared once under `swift test --parallel`, never alone).
        let pipes = after.subtracting(before).filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))?.hasPrefix("pipe:") ?? false
        }
        XCTAssertEqual(pipes, [], "the pipes are closed, also when the program is missing")
        XCTAssertNotNil(ChildProcess.find("sh"))
        XCTAssertNil(ChildProcess.find("no-such-program-here"))
    }

    /// The box's side of Eddystone registration: a fresh key pair each time, and a low-order
    /// service key refused. That the hub derives the same identity key is proved end to end by
    /// hub/e2e/test_box.py (the hub checks the box's initial EID against its own derivation).
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
