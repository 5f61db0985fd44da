import Foundation
@testable import NearcastHub
import XCTest

/// The renderer's limits without a server: child processes stopped with their whole group at a
/// deadline or a cancellation, the render slots' order, patience and cancellation, the config
/// file's `decks`, and the quota's words. The limits over real hubs and poppler are in
/// hub/e2e/test_renderer_limits.py.
final class RendererLimitsTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func shell(_ script: String, deadline: Duration = .seconds(30)) async throws -> (ChildProcess.Outcome, String) {
        try await Self.shell(script, in: folder, deadline: deadline)
    }

    /// `script` run by /bin/sh as a child: how it ended and what it printed.
    private static func shell(_ script: String, in folder: URL, deadline: Duration) async throws -> (ChildProcess.Outcome, String) {
        let output = folder.appendingPathComponent("out").path
        let outcome = try await ChildProcess.run("/bin/sh", ["-c", script], standardOutput: output,
                                                 standardError: folder.appendingPathComponent("err").path,
                                                 deadline: .now + deadline)
        return (outcome, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// Whether `pid` still runs (a zombie waiting for its reaper does not).
    private func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(close, offsetBy: 2)...].hasPrefix("Z")
    }

    func testAChildsExitAndOutputComeBack() async throws {
        let (outcome, output) = try await shell("echo hello; exit 3")
        XCTAssertEqual(outcome, .init(end: .exited(3), stoppedBy: nil))
        XCTAssertEqual(output, "hello\n")
        do {
            _ = try await ChildProcess.run("/nonexistent/tool", [], standardOutput: "/dev/null", standardError: "/dev/null",
                                           deadline: .now + .seconds(5))
            XCTFail("a missing program started")
        } catch let failure as ChildProcess.SpawnFailure {
            XCTAssertEqual(failure.code, ENOENT)
            XCTAssertFalse(failure.isExhaustion)
        }
    }

    /// The deadline kills the child's whole group: a grandchild it started goes with it.
    func testTheDeadlineKillsTheWholeProcessGroup() async throws {
        let started = ContinuousClock.now
        let (outcome, output) = try await shell("sleep 30 & echo $!; wait", deadline: .milliseconds(300))
        XCTAssertEqual(outcome.stoppedBy, .deadline)
        XCTAssertEqual(outcome.end, .signalled(SIGKILL))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        let grandchild = try XCTUnwrap(Int32(output.trimmingCharacters(in: .whitespacesAndNewlines)))
        for _ in 0..<50 where isRunning(grandchild) { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertFalse(isRunning(grandchild), "the grandchild outlived the deadline")
    }

    func testCancellingTheTaskKillsTheChild() async throws {
        let output = folder.appendingPathComponent("out").path
        let task = Task {
            try await ChildProcess.run("/bin/sleep", ["30"], standardOutput: output, standardError: output, deadline: .now + .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        task.cancel()
        let outcome = try await task.value
        XCTAssertEqual(outcome.stoppedBy, .cancelled)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
    }

    /// Children are awaited off Swift's cooperative pool: many more of them than there are
    /// cores wait at once, and the pool still runs other work meanwhile.
    func testWaitingChildrenHoldNoThreadOfThePool() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let outcome = try await ChildProcess.run("/bin/sleep", ["0.5"], standardOutput: "/dev/null",
                                                             standardError: "/dev/null", deadline: .now + .seconds(10))
                    XCTAssertEqual(outcome.end, .exited(0))
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            // A new task needs a free thread of the pool to run on at all.
            let probe = ContinuousClock.now
            _ = await Task.detached { 1 }.value
            XCTAssertLessThan(ContinuousClock.now - probe, .milliseconds(100), "the pool is blocked")
            try await group.waitForAll()
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), "\(count) half-second children ran side by side")
    }

    func testRenderSlotsServeInOrderGiveUpAfterTheirPatienceAndLeaveWhenCancelled() async throws {
        let slots = RenderSlots(1)
        let first = try await slots.acquire(within: .seconds(5))
        XCTAssertTrue(first)
        let impatient = try await slots.acquire(within: .milliseconds(50))
        XCTAssertFalse(impatient, "no slot came free within its patience")
        XCTAssertEqual(slots.waitingCount, 0)

        let order = OrderLog()
        let second = Task { if try await slots.acquire(within: .seconds(5)) { order.add("second") } }
        while slots.waitingCount < 1 { await Task.yield() }
        let cancelled = Task { try await slots.acquire(within: .seconds(5)) }
        while slots.waitingCount < 2 { await Task.yield() }
        let third = Task { if try await slots.acquire(within: .seconds(5)) { order.add("third") } }
        while slots.waitingCount < 3 { await Task.yield() }
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            XCTFail("a cancelled waiter was served")
        } catch is CancellationError {}
        XCTAssertEqual(slots.waitingCount, 2, "the cancelled waiter left the queue")
        slots.release()
        try await second.value
        XCTAssertEqual(order.entries, ["second"], "one slot: the third still waits")
        slots.release()
        try await third.value
        XCTAssertEqual(order.entries, ["second", "third"])
        slots.release()
        let again = try await slots.acquire(within: .milliseconds(10))
        XCTAssertTrue(again, "every slot came back")
    }

    func testTheConfigFileSetsTheDeckLimitsAndNamesABadOne() throws {
        let config = try HubConfigFile.parse(Data("{ decks: { renderSeconds: 30, storagePerProjectMB: 50 } }".utf8), path: "hub.json5")
        XCTAssertEqual(config.decks?.renderSeconds, 30)
        XCTAssertEqual(config.decks?.storagePerProjectMB, 50)
        XCTAssertEqual(config.decks?.rendersAtOnce, DeckLimits().rendersAtOnce, "an absent setting keeps its default")
        XCTAssertEqual(DeckRenderer.Limits(config.decks!).renderSeconds, 30)
        for (text, named) in [("{ decks: { renderSecs: 3 } }", "unknown key decks.renderSecs"),
                              ("{ decks: { renderSeconds: 0 } }", "decks.renderSeconds: must be a whole number from 1 to 3600"),
                              ("{ decks: { rendersAtOnce: 1.5 } }", "decks.rendersAtOnce: must be a whole number")] {
            XCTAssertThrowsError(try HubConfigFile.parse(Data(text.utf8), path: "hub.json5"), text) { error in
                XCTAssertTrue("\(error)".contains(named), "\(text): \(error)")
            }
        }
        var limits = DeckLimits()
        limits.storagePerProjectMB = 0
        XCTAssertEqual(limits.problem(), "storagePerProjectMB must be a whole number from 1 to 1000000, not 0")
    }

    func testTheQuotaCountsStoredBase64AndSaysWhatIsUsed() {
        XCTAssertEqual(DeckQuota.storedBytes(3), 4)
        XCTAssertEqual(DeckQuota.storedBytes(4), 8)
        let message = DeckQuota.message(used: 150 * 1024 * 1024, adding: 60 * 1024 * 1024, quota: 200 * 1024 * 1024)
        XCTAssertTrue(message.hasPrefix("the project's decks already hold 150.0 MB of page images and this deck's pages need 60.0 MB"), message)
        XCTAssertTrue(message.contains("the quota is 200.0 MB a project (decks.storagePerProjectMB)"), message)
        let small = DeckQuota.message(used: 940_000, adding: 120_000, quota: 1024 * 1024)
        XCTAssertTrue(small.contains("hold 0.90 MB of page images and this deck's pages need 0.11 MB: the quota is 1.00 MB"), small)
    }

    /// A killed hub's scratch directory goes at the next start once it is older than any render;
    /// a fresh one (another hub's live render) stays.
    func testAbandonedScratchIsRemovedAndALiveRendersKept() throws {
        let old = folder.appendingPathComponent("nearcast-deck-old"), live = folder.appendingPathComponent("nearcast-deck-live")
        for directory in [old, live] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3 * 3600)], ofItemAtPath: old.path)
        DeckRenderer.removeAbandonedScratch(in: folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: old.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.path))
    }

    /// The command poppler runs under: each program sets its limit and execs the next.
    func testPopplerRunsUnderItsDeathSignalPriorityAndLimits() {
        var limits = DeckRenderer.Limits()
        limits.renderSeconds = 7
        let command = DeckRenderer(limits: limits).command("/usr/bin/pdftoppm", ["a.pdf"])
        XCTAssertEqual(command.prefix(7), ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", "/usr/bin/nice", "-n", "10"])
        XCTAssertTrue(command.contains("--cpu=7"))
        XCTAssertEqual(command.suffix(2), ["/usr/bin/pdftoppm", "a.pdf"])
        let without = DeckRenderer(limits: limits).command("/usr/bin/pdftoppm", ["a.pdf"], deathSignal: false)
        XCTAssertEqual(without.prefix(3), ["/usr/bin/nice", "-n", "10"])
        XCTAssertEqual(Array(command.dropFirst(4)), without)
    }

    /// setpriv is asked once whether it can set the death signal: here (no seccomp filter) it
    /// can; a setpriv that fails (as under the package's unit, which refuses capset) is not used.
    func testTheDeathSignalIsUsedOnlyWhereSetprivCanSetIt() async {
        let here = DeathSignalProbe()
        let works = await here.works(setpriv: "/usr/bin/setpriv")
        XCTAssertTrue(works)
        let refused = DeathSignalProbe()
        let failing = await refused.works(setpriv: "/bin/false")
        XCTAssertFalse(failing)
        // Remembered: asked again with a setpriv that would work, the answer stands.
        let again = await refused.works(setpriv: "/usr/bin/setpriv")
        XCTAssertFalse(again)
    }
}

/// What happened, in order, from several tasks.
private final class OrderLog: @unchecked Sendable {
    // Unchecked: every access holds the lock.
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ entry: String) { lock.withLock { list.append(entry) } }
    var entries: [String] { lock.withLock { list } }
}
