#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// An instance lost under the room (`--kill-instance`): with every phone following and some
/// reacting, one hub gets SIGKILL and the presenter turns to the deck's last page through the
/// balancer at once. Its phones' streams end; each opens again as EventSource does (after 3 s,
/// through the balancer, to a hub still alive) and gets the current page as its first event.
/// Measured: seconds from the kill until each phone that followed holds the new page, the phones
/// that never do, the turn's own answer, and the reactions answered 202 around the kill against
/// what the show counts (from the 202s to the 202s and the answers lost with the hub: nothing
/// acknowledged is lost, nothing counted twice).
struct InstanceKill: Sendable {
    /// Which instance (an index into the room's), and the reactions around the kill.
    struct Plan: Sendable {
        var instance: Int
        /// Reactions go on this long before the kill, and `reactionSeconds` in all.
        var reactionsBeforeSeconds: Double
        var reactionSeconds: Double
        var reactingPhones: Int
        var reactionsPerPhonePerSecond: Double
        /// How long to wait for every phone to hold the new page.
        var backTimeoutSeconds: Double
    }

    let bench: BenchContext
    let plan: Plan

    private var recorder: Recorder { bench.recorder }

    /// The deck's last page is the kill's turn (the page turns before it stop short of it).
    func run(followers: Set<Int>, reacting grants: [PhoneGrant]) async -> Report.Kill {
        let instance = bench.room.instances[plan.instance]
        let page = bench.room.pages
        let countedBefore = await countedReactions()
        let before = recorder.snapshot
        let reactionsFrom = before.sent.count
        let reacting = Array(grants.prefix(plan.reactingPhones))
        let reactionsUntilNs = Clocks.monotonicNs() + UInt64(plan.reactionSeconds * 1e9)
        progress("\(reacting.count) phones react; \(instance.name) (pid \(instance.pid)) gets SIGKILL in \(plan.reactionsBeforeSeconds) s")
        let reactions = Task { [bench, plan] in
            await PhoneReactions.tapAll(reacting, perSecond: plan.reactionsPerPhonePerSecond, untilNs: reactionsUntilNs, bench: bench)
        }
        try? await Task.sleep(for: .milliseconds(Int(plan.reactionsBeforeSeconds * 1000)))

        let killedNs = Clocks.monotonicNs()
        let killed = kill(instance.pid, SIGKILL) == 0
        let killError = killed ? nil : String(cString: strerror(errno))
        // The turn right away, on a connection of its own through the first balancer.
        var turn: (status: Int, ms: Double) = (0, 0)
        if let connection = try? await HTTPConnection.connect(to: bench.entry, from: nil, group: bench.group) {
            await Presenter(bench: bench).turn(to: page, on: connection)
            connection.close()
            if let last = recorder.snapshot.turns.last, last.page == page {
                turn = (last.status, Distribution.rounded(Double(last.answeredNs - last.sentNs) / 1e6))
            }
        }
        progress("\(instance.name) killed\(killError.map { " (failed: \($0))" } ?? ""); page \(page) turned: HTTP \(turn.status) in \(turn.ms) ms")

        let deadline = killedNs + UInt64(plan.backTimeoutSeconds * 1e9)
        var state = recorder.snapshot
        while Clocks.monotonicNs() < deadline && !followers.allSatisfy({ state.phones[$0].pages[page] != nil }) {
            try? await Task.sleep(for: .milliseconds(100))
            state = recorder.snapshot
        }
        await reactions.value
        // A reaction is answered 202 once its batch is written; read the counts until they stay.
        let countedAfter = await settledCount()
        state = recorder.snapshot

        var back: [Double] = [], backLost: [Double] = [], never = 0, lost = 0
        for index in followers {
            let phone = state.phones[index]
            let wasLost = (phone.lostNs ?? 0) >= killedNs
            if wasLost { lost += 1 }
            guard let arrived = phone.pages[page], arrived >= killedNs else {
                never += 1
                continue
            }
            let ms = Double(arrived - killedNs) / 1e6
            back.append(ms)
            if wasLost { backLost.append(ms) }
        }
        let sent = state.sent[reactionsFrom...]
        let accepted = sent.filter { $0.status == 202 }.count
        let other = Dictionary(sent.filter { $0.status != 202 }.map { ($0.status == 0 ? "no answer" : "HTTP \($0.status)", 1) }, uniquingKeysWith: +)
        let fateUnknown = sent.filter { $0.status == 0 || $0.status == 502 }.count
        return Report.Kill(
            instance: instance.name, killed: killed, killError: killError, followers: followers.count, streamsLost: lost, page: page,
            turnStatus: turn.status, turnMs: turn.ms, back: Distribution(milliseconds: back), backLost: Distribution(milliseconds: backLost),
            neverBack: never, reopened: state.reconnects - before.reconnects,
            refusals: Self.increase(state.refusals, since: before.refusals),
            connectionErrors: Self.increase(state.connectionErrors, since: before.connectionErrors),
            reactions: .init(phones: reacting.count, sent: sent.count, accepted: accepted, otherAnswers: other, fateUnknown: fateUnknown,
                             countedBefore: countedBefore, countedAfter: countedAfter,
                             counted: countedBefore.flatMap { before in countedAfter.map { $0 - before } }))
    }

    /// The show's reactions counted so far, every value together (`counts` in the presenter's
    /// `GET /v1/shows/BEACON`, through the balancer); nil when it cannot be read.
    private func countedReactions() async -> Int? {
        struct Show: Decodable { var counts: [String: Int]? }
        guard let connection = try? await HTTPConnection.connect(to: bench.entry, from: nil, group: bench.group) else { return nil }
        defer { connection.close() }
        guard let answer = try? await connection.send(.GET, "/v1/shows/\(bench.room.beacon)", headers: [("X-Api-Key", bench.room.secretKey)]),
              answer.status == 200,
              let show = try? JSONDecoder().decode(Show.self, from: Data(buffer: answer.body)) else { return nil }
        return (show.counts ?? [:]).values.reduce(0, +)
    }

    /// The count once two reads a second apart agree (at most 10 s).
    private func settledCount() async -> Int? {
        var last = await countedReactions()
        for _ in 0..<10 {
            try? await Task.sleep(for: .seconds(1))
            let now = await countedReactions()
            if now != nil && now == last { return now }
            last = now
        }
        return last
    }

    private static func increase(_ after: [String: Int], since before: [String: Int]) -> [String: Int] {
        after.reduce(into: [:]) { grown, entry in
            let more = entry.value - (before[entry.key] ?? 0)
            if more > 0 { grown[entry.key] = more }
        }
    }
}
