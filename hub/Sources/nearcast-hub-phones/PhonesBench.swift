#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A run: the presenter's stream, the phones' join (N phones arriving over T seconds), the hubs'
/// memory once they follow, page turns, reactions, an instance killed if asked (`InstanceKill`),
/// then the report.
struct PhonesBench: Sendable {
    struct Plan: Sendable {
        var kinds: [JoinKind]
        var arrivalSeconds: Double
        var sightDelaySeconds: Double
        var settleSeconds: Double
        var followTimeoutSeconds: Double
        var turns: Int
        var turnPauseSeconds: Double
        var turnTimeoutSeconds: Double
        var reactingPhones: Int
        var reactionSeconds: Double
        var reactionsPerPhonePerSecond: Double
        var eventLoops: Int
        /// An instance killed last (`InstanceKill`), or none.
        var kill: InstanceKill.Plan?
    }

    let bench: BenchContext
    let plan: Plan

    private var room: Room { bench.room }
    private var recorder: Recorder { bench.recorder }
    private var measured: [(name: String, pid: Int32, children: Bool)] {
        room.instances.map { ($0.name, $0.pid, false) } + room.helpers.map { ($0.name, $0.pid, $0.children ?? false) }
    }

    func run() async throws -> Report {
        var phases: [Report.Phase] = []
        let rssBefore = room.instances.map { ProcessReadings.statusKiB("VmRSS", pid: $0.pid) }
        let toolBefore = ProcessReadings.statusKiB("VmRSS")
        try await Presenter(bench: bench).start()
        progress("the presenter follows the show; \(plan.kinds.count) phones arrive over \(plan.arrivalSeconds) s")

        // The doors open.
        let joinStart = CPUReading.now(measured)
        let grants = await join()
        let followers = await waitForFollowers(grants.count)
        let joinEnd = CPUReading.now(measured)
        // The join's own refusals and connection errors: a kill's are its report's (a reaction
        // in flight to the hub that died may lose its connection).
        let joined = recorder.snapshot
        phases.append(phase("join", joinStart, joinEnd))
        let joinSeconds = Double(joinEnd.wallNs - joinStart.wallNs) / 1e9
        progress("\(followers.count) of \(plan.kinds.count) phones follow after \(String(format2: joinSeconds)) s")

        // Memory, once they follow and the hubs have settled.
        try? await Task.sleep(for: .milliseconds(Int(plan.settleSeconds * 1000)))
        var memory: [Report.InstanceMemory] = []
        for (index, instance) in room.instances.enumerated() {
            let after = ProcessReadings.statusKiB("VmRSS", pid: instance.pid)
            let count = await Self.followerGauge(of: instance, group: bench.group)
            var perFollower: Double?
            if let before = rssBefore[index], let after, let count, count > 0 { perFollower = Double(after - before) / Double(count) }
            memory.append(.init(name: instance.name, followers: count, rssBeforeKiB: rssBefore[index], rssAfterKiB: after,
                                perFollowerKiB: perFollower.map { ($0 * 100).rounded() / 100 }))
        }
        let toolAfter = ProcessReadings.statusKiB("VmRSS")

        var turns: Report.Turns?
        if plan.turns > 0 {
            let start = CPUReading.now(measured)
            turns = await turnPages(followers: followers)
            phases.append(phase("page turns", start, CPUReading.now(measured)))
        }
        var reactions: Report.Reactions?
        if plan.reactingPhones > 0 && plan.reactionSeconds > 0 {
            let start = CPUReading.now(measured)
            reactions = await react(grants.filter { followers.contains($0.index) })
            phases.append(phase("reactions", start, CPUReading.now(measured)))
        }

        var kill: Report.Kill?
        if let killPlan = plan.kill {
            let start = CPUReading.now(measured)
            kill = await InstanceKill(bench: bench, plan: killPlan).run(followers: followers, reacting: grants.filter { followers.contains($0.index) })
            phases.append(phase("instance killed", start, CPUReading.now(measured)))
        }

        let state = recorder.snapshot
        bench.stopping.withLockedValue { $0 = true }
        let failures = Dictionary(state.phones.compactMap { phone in phone.followingNs == nil ? (phone.failure ?? "no show event came") : nil }
            .map { ($0, 1) }, uniquingKeysWith: +)
        let joinLatencies = state.phones.compactMap { phone in phone.followingNs.map { Double($0 - phone.arrivedNs) / 1e6 } }
        let report = Report(
            setup: .init(phones: plan.kinds.count, kinds: Dictionary(plan.kinds.map { ($0.rawValue, 1) }, uniquingKeysWith: +),
                         entry: bench.entries.map(\.description).joined(separator: ", "), instances: room.instances.count, arrivalSeconds: plan.arrivalSeconds,
                         sourceAddresses: bench.sources.count, workBits: room.workBits, eventLoops: plan.eventLoops, images: bench.options.images),
            join: .init(following: followers.count, failed: plan.kinds.count - followers.count, seconds: (joinSeconds * 100).rounded() / 100,
                        latency: Distribution(milliseconds: joinLatencies), failures: failures, refusals: joined.refusals,
                        connectionErrors: joined.connectionErrors, presenterFollowers: state.presenterFollowers),
            memory: memory, turns: turns, reactions: reactions, kill: kill,
            streams: .init(lost: state.phones.reduce(0) { $0 + $1.streamsLost }, revoked: state.phones.reduce(0) { $0 + $1.revoked },
                           ended: state.phones.reduce(0) { $0 + $1.ended }, reconnects: state.reconnects),
            phases: phases,
            tool: .init(rssKiB: ProcessReadings.statusKiB("VmRSS"), peakRSSKiB: ProcessReadings.statusKiB("VmHWM"),
                        perFollowerKiB: toolBefore.flatMap { before in toolAfter.map { after in
                            followers.isEmpty ? 0 : (Double(after - before) / Double(followers.count) * 100).rounded() / 100 } },
                        descriptors: ProcessReadings.openDescriptors(), cpuSeconds: ProcessReadings.cpuSeconds()))
        for channel in bench.streams.withLockedValue({ Array($0.values) }) { channel.close(promise: nil) }
        return report
    }

    /// Every phone's join, each setting out at its moment of the arrival window.
    private func join() async -> [PhoneGrant] {
        let start = Clocks.monotonicNs()
        let count = plan.kinds.count
        return await withTaskGroup(of: PhoneGrant?.self) { group in
            for (index, kind) in plan.kinds.enumerated() {
                let delay = kind == .sight ? plan.sightDelaySeconds : 0
                let offsetNs = UInt64((Double(index) * plan.arrivalSeconds / Double(max(1, count)) + delay) * 1e9)
                group.addTask { [bench] in
                    let now = Clocks.monotonicNs()
                    if start + offsetNs > now { try? await Task.sleep(for: .nanoseconds(Int(start + offsetNs - now))) }
                    return await PhoneLife(index: index, kind: kind, bench: bench).join()
                }
            }
            var grants: [PhoneGrant] = []
            for await grant in group { if let grant { grants.append(grant) } }
            return grants.sorted { $0.index < $1.index }
        }
    }

    /// The phones that follow (their first `show` event came), once every phone that joined does
    /// or the timeout passes.
    private func waitForFollowers(_ joined: Int) async -> Set<Int> {
        let deadline = Clocks.monotonicNs() + UInt64(plan.followTimeoutSeconds * 1e9)
        while true {
            let phones = recorder.snapshot.phones
            let following = Set(phones.indices.filter { phones[$0].followingNs != nil })
            if following.count >= joined || Clocks.monotonicNs() >= deadline { return following }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The presenter turns to pages 2, 3, … a pause apart; each following phone's first `show`
    /// event at each page is its latency for that turn.
    private func turnPages(followers: Set<Int>) async -> Report.Turns {
        let presenter = Presenter(bench: bench)
        let pages = Array(2...max(2, min(room.pages, plan.turns + 1)))
        guard let connection = try? await HTTPConnection.connect(to: bench.entry, from: nil, group: bench.group) else {
            recorder.update { $0.connectionErrors["the presenter's connection", default: 0] += 1 }
            return Report.Turns(latency: Distribution(milliseconds: []), missed: 0, put: Distribution(milliseconds: []), perTurn: [],
                                images: nil, imageFailures: [:])
        }
        defer { connection.close() }
        progress("the presenter turns \(pages.count) pages, \(plan.turnPauseSeconds) s apart")
        for page in pages {
            await presenter.turn(to: page, on: connection)
            try? await Task.sleep(for: .milliseconds(Int(plan.turnPauseSeconds * 1000)))
        }
        let last = pages[pages.count - 1]
        let deadline = Clocks.monotonicNs() + UInt64(plan.turnTimeoutSeconds * 1e9)
        while Clocks.monotonicNs() < deadline {
            let phones = recorder.snapshot.phones
            if followers.allSatisfy({ phones[$0].pages[last] != nil && (!bench.options.images || phones[$0].images[last] != nil) }) { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        let state = recorder.snapshot
        var all: [Double] = [], images: [Double] = [], perTurn: [Report.Turn] = [], missedAll = 0
        for turn in state.turns {
            var latencies: [Double] = [], missed = 0
            for index in followers {
                let phone = state.phones[index]
                guard let following = phone.followingNs, following <= turn.sentNs else { continue }
                if let arrived = phone.pages[turn.page], arrived >= turn.sentNs {
                    latencies.append(Double(arrived - turn.sentNs) / 1e6)
                } else {
                    missed += 1
                }
                if let loaded = phone.images[turn.page], loaded >= turn.sentNs { images.append(Double(loaded - turn.sentNs) / 1e6) }
            }
            all += latencies
            missedAll += missed
            perTurn.append(.init(page: turn.page, status: turn.status, putMs: Distribution.rounded(Double(turn.answeredNs - turn.sentNs) / 1e6),
                                 latency: Distribution(milliseconds: latencies), missed: missed))
        }
        return Report.Turns(latency: Distribution(milliseconds: all), missed: missedAll,
                            put: Distribution(milliseconds: state.turns.map { Double($0.answeredNs - $0.sentNs) / 1e6 }), perTurn: perTurn,
                            images: bench.options.images ? Distribution(milliseconds: images) : nil, imageFailures: state.imageFailures)
    }

    /// The first `reactingPhones` followers tap reactions; the presenter's stream reads the batches.
    private func react(_ following: [PhoneGrant]) async -> Report.Reactions {
        let reacting = Array(following.prefix(plan.reactingPhones))
        let untilNs = Clocks.monotonicNs() + UInt64(plan.reactionSeconds * 1e9)
        progress("\(reacting.count) phones react, \(plan.reactionsPerPhonePerSecond)/s each, for \(plan.reactionSeconds) s")
        await PhoneReactions.tapAll(reacting, perSecond: plan.reactionsPerPhonePerSecond, untilNs: untilNs, bench: bench)
        // The last batch: the hub sends one every 150 ms.
        try? await Task.sleep(for: .seconds(1))
        let state = recorder.snapshot
        let accepted = state.sent.filter { $0.status == 202 }
        let refused = Dictionary(state.sent.filter { $0.status != 202 }.map { ($0.status == 0 ? "no answer" : "HTTP \($0.status)", 1) },
                                 uniquingKeysWith: +)
        let matches = ReactionMatching.match(drawn: state.drawn, accepted: accepted)
        return Report.Reactions(
            phones: reacting.count, seconds: plan.reactionSeconds, perPhonePerSecond: plan.reactionsPerPhonePerSecond,
            sent: state.sent.count, accepted: accepted.count, refused: refused, drawn: state.drawn.count,
            admittedToPresenter: Distribution(milliseconds: state.drawn.map { $0.arrivedMs - $0.admittedMs }),
            sentToPresenter: Distribution(milliseconds: matches), matched: matches.count,
            roundTrip: Distribution(milliseconds: accepted.map { $0.answeredMs - $0.sentMs }))
    }

    private func phase(_ name: String, _ start: CPUReading, _ end: CPUReading) -> Report.Phase {
        Report.Phase(phase: name, seconds: (Double(end.wallNs - start.wallNs) / 1e7).rounded() / 100,
                     cores: Dictionary(end.cores(since: start).map { ($0.name, ($0.cores * 100).rounded() / 100) }, uniquingKeysWith: +))
    }

    /// The followers an instance counts itself (`nearcast_hub_show_followers` in its `/metrics`).
    static func followerGauge(of instance: Room.Instance, group: any EventLoopGroup) async -> Int? {
        guard let endpoint = try? Endpoint(instance.address),
              let connection = try? await HTTPConnection.connect(to: endpoint, from: nil, group: group) else { return nil }
        defer { connection.close() }
        guard let answer = try? await connection.send(.GET, "/metrics"), answer.status == 200 else { return nil }
        for line in answer.text.split(separator: "\n") where line.hasPrefix("nearcast_hub_show_followers") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { return Int(value) }
        }
        return nil
    }
}

/// Pairs each reaction the presenter's stream drew with the POST that sent it: items carry only
/// their value and the hub's admission stamp, so a drawn reaction is matched to the earliest
/// accepted reaction of the same value, not matched yet, whose POST was under way at that stamp
/// (sent at or before it, answered at or after it; a millisecond's slack for the hub's rounding).
/// At a rate where every reaction is drawn (at most 24 a batch of 150 ms) and few of one value
/// are in flight together, the pairing is the true one or one a few ms apart.
enum ReactionMatching {
    /// POST sent -> presenter read, in ms, for each drawn reaction matched.
    static func match(drawn: [Recorder.DrawnReaction], accepted: [Recorder.SentReaction]) -> [Double] {
        var byValue: [String: [Recorder.SentReaction]] = [:]
        for reaction in accepted { byValue[reaction.value, default: []].append(reaction) }
        for value in byValue.keys { byValue[value]!.sort { $0.sentMs < $1.sentMs } }
        var used: [String: [Bool]] = byValue.mapValues { Array(repeating: false, count: $0.count) }
        var latencies: [Double] = []
        for item in drawn.sorted(by: { $0.admittedMs < $1.admittedMs }) {
            guard let candidates = byValue[item.value] else { continue }
            for (index, sent) in candidates.enumerated() where !used[item.value]![index] {
                if sent.sentMs - 1 > item.admittedMs { break }
                if sent.answeredMs + 1 >= item.admittedMs {
                    used[item.value]![index] = true
                    latencies.append(item.arrivedMs - sent.sentMs)
                    break
                }
            }
        }
        return latencies
    }
}

/// Progress, on stderr (the report goes to stdout).
func progress(_ message: String) {
    var line = "nearcast-hub-phones: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
