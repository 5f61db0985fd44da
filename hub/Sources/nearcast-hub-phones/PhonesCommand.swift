import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOPosix

/// `nearcast-hub-phones`: a room of phones on one machine, each living as the listener page does,
/// and the presenter measuring them. tools/bench/phones sets up the hubs and the room and runs it;
/// docs/venue-operator.md ("Measured: the hub") has its figures.
@main
struct PhonesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearcast-hub-phones",
        abstract: "Phones joining a show, following its page turns and reacting; the presenter measuring them.",
        discussion: """
            Reads the room (--room, written by tools/bench/phones: the entry address, the hub \
            instances, the keys, the show, the box's EIDs). The phones arrive over --arrival-seconds, \
            each joining as --mix says, earning its phone id and following the show's events on its \
            own connection; the hubs' memory is read once they follow; the presenter turns --turns \
            pages; --reacting phones react; with --kill-instance, that hub is killed last while \
            they react and the page turned at once (the phones reopen their streams as EventSource \
            does). Prints the report (--json: JSON).
            """)

    @Option(help: "The room file (JSON) tools/bench/phones wrote.")
    var room: String

    @Option(help: "Phones.")
    var phones = 1_000

    @Option(help: "How the phones join, as shares of ear (the public key and a watch token), heard (a pass by hearing) and sight (the code on the screen).")
    var mix = "ear=2,heard=1,sight=1"

    @Option(help: "Seconds over which the phones arrive, evenly (default: 6 ms a phone, so 10,000 in 60 s).")
    var arrivalSeconds: Double?

    @Option(help: "Seconds the phones by sight arrive after their turn in the arrival (the code's cap counts phones that earned an id by hearing, and that count lags a storm's first seconds).")
    var sightDelay = 0.0

    @Option(help: "Source addresses spread over 127.0.0.0/8 (127.0.0.2 on), a phone each in turn; 0 lets the kernel choose (127.0.0.1).")
    var addresses = 0

    @Option(help: "Page turns (to pages 2, 3, …; at most the deck's pages less one).")
    var turns = 10

    @Option(help: "Seconds between page turns.")
    var turnPause = 1.0

    @Option(help: "Seconds to wait after the last turn for phones still without it.")
    var turnTimeout = 10.0

    @Option(help: "Phones that react (the first that follow).")
    var reacting = 1_000

    @Option(help: "Seconds the reactions go on (0: none).")
    var reactionSeconds = 10.0

    @Option(help: "Reactions a phone sends a second, on average (0.15: 1,000 phones send 150/s, all drawn on the presenter's screen).")
    var reactionsPerPhone = 0.15

    @Option(help: "Seconds to wait after the join before reading the hubs' memory.")
    var settle = 5.0

    @Option(help: "Seconds after the last arrival to wait for phones' first show event.")
    var followTimeout = 15.0

    @Option(help: "SwiftNIO event loop threads.")
    var threads = 1

    @Flag(help: "Load each new page's image as the page does.")
    var images = false

    @Flag(help: "Do not open a lost stream again (EventSource does, after its reconnection time).")
    var noReconnect = false

    @Option(help: "EventSource's reconnection time: seconds from a lost stream to opening it again (Chromium's: 3).")
    var retrySeconds = 3.0

    @Option(help: "Last, kill this hub instance (1: the room's first) with SIGKILL while phones react, and turn to the deck's last page at once (0: none; the turns before stop short of that page).")
    var killInstance = 0

    @Option(help: "Seconds the reactions go on before the kill.")
    var killAfter = 2.0

    @Option(help: "Seconds the reactions around the kill go on in all.")
    var killReactionSeconds = 8.0

    @Option(help: "Seconds after the kill to wait for every phone to hold the new page.")
    var backTimeout = 20.0

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Exit 1 unless every phone followed and saw every page turn, no reaction was refused, and after a kill every phone came back and every reaction answered 202 was counted, none twice; each broken check is said on standard error.")
    var check = false

    mutating func run() async throws {
        let room = try Room.load(room)
        let kinds = try Self.kinds(mix: mix, phones: phones)
        guard threads >= 1, addresses >= 0, turns >= 0, reactionsPerPhone >= 0, retrySeconds >= 0 else {
            throw ValidationError("--threads must be at least 1; --addresses, --turns, --reactions-per-phone and --retry-seconds not negative")
        }
        guard (0...room.instances.count).contains(killInstance) else {
            throw ValidationError("--kill-instance \(killInstance): the room has instances 1 to \(room.instances.count) (0: kill none)")
        }
        guard killInstance == 0 || (room.pages >= 3 && killAfter >= 0 && killReactionSeconds >= killAfter) else {
            throw ValidationError("--kill-instance needs a deck of at least 3 pages (the room's has \(room.pages)) and 0 <= --kill-after <= --kill-reaction-seconds")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let recorder = Recorder(phones: phones)
        let bench = BenchContext(room: room, entries: try room.entries.map { text throws(UsageError) in try Endpoint(text) }, group: group, recorder: recorder,
                                 options: PhoneOptions(images: images, reconnect: !noReconnect, retrySeconds: retrySeconds),
                                 sources: try (0..<addresses).map { try Self.sourceAddress($0) })
        let plan = PhonesBench.Plan(kinds: kinds, arrivalSeconds: arrivalSeconds ?? Double(phones) * 0.006, sightDelaySeconds: sightDelay, settleSeconds: settle,
                                    followTimeoutSeconds: followTimeout, turns: min(turns, room.pages - (killInstance > 0 ? 2 : 1)), turnPauseSeconds: turnPause,
                                    turnTimeoutSeconds: turnTimeout, reactingPhones: reacting, reactionSeconds: reactionSeconds,
                                    reactionsPerPhonePerSecond: reactionsPerPhone, eventLoops: threads,
                                    kill: killInstance == 0 ? nil : InstanceKill.Plan(instance: killInstance - 1, reactionsBeforeSeconds: killAfter,
                                                                                    reactionSeconds: killReactionSeconds, reactingPhones: reacting,
                                                                                    reactionsPerPhonePerSecond: reactionsPerPhone, backTimeoutSeconds: backTimeout))
        let report = try await PhonesBench(bench: bench, plan: plan).run()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
        try? await Task.sleep(for: .milliseconds(200))   // the streams' closes
        try await group.shutdownGracefully()
        if check {
            let failed = Self.failedChecks(report)
            for reason in failed { progress("check failed: \(reason)") }
            if !failed.isEmpty { throw ExitCode(1) }
        }
    }

    /// What `--check` holds, each broken one said in a line (a CI log then names the cause):
    /// every phone followed, saw every turn, and no reaction was refused or lost; after a kill,
    /// every phone came back and the show counted every reaction answered 202.
    static func failedChecks(_ report: Report) -> [String] {
        var failed: [String] = []
        if report.join.failed != 0 { failed.append("\(report.join.failed) phone(s) never followed") }
        if let missed = report.turns?.missed, missed != 0 { failed.append("\(missed) page turn(s) never reached a phone") }
        if let reactions = report.reactions, reactions.sent != reactions.accepted {
            failed.append("\(reactions.sent - reactions.accepted) of \(reactions.sent) reactions not answered 202")
        }
        if let kill = report.kill {
            if !kill.killed { failed.append("the instance was not killed: \(kill.killError ?? "?")") }
            if kill.neverBack != 0 { failed.append("\(kill.neverBack) phone(s) never back on page \(kill.page) after the kill") }
            if kill.turnStatus != 200 { failed.append("the turn at the kill was answered HTTP \(kill.turnStatus)") }
            if !kill.reactions.countedAsAnswered {
                failed.append("around the kill \(kill.reactions.accepted) reactions were answered 202 and \(kill.reactions.fateUnknown) "
                              + "lost their answer with the hub, and the show counted "
                              + "\(kill.reactions.counted.map(String.init) ?? "?") (\(kill.reactions.countedBefore.map(String.init) ?? "?") -> "
                              + "\(kill.reactions.countedAfter.map(String.init) ?? "?"))")
            }
        }
        return failed
    }

    /// The phones' kinds, interleaved by their shares (ear=2,heard=1,sight=1: ear, ear, heard,
    /// sight, …), so the ones by sight come throughout the arrival, after the ones that heard.
    static func kinds(mix: String, phones: Int) throws -> [JoinKind] {
        var shares: [(JoinKind, Int)] = []
        for part in mix.split(separator: ",") {
            let pieces = part.split(separator: "=")
            guard pieces.count == 2, let kind = JoinKind(rawValue: String(pieces[0])), let share = Int(pieces[1]), share >= 0 else {
                throw ValidationError("--mix \(mix): \(part) is not KIND=SHARE with KIND one of ear, heard, sight")
            }
            shares.append((kind, share))
        }
        let cycle = shares.flatMap { Array(repeating: $0.0, count: $0.1) }
        guard !cycle.isEmpty else { throw ValidationError("--mix \(mix): the shares add up to 0") }
        return (0..<phones).map { cycle[$0 % cycle.count] }
    }

    /// The `index`th source address: 127.0.0.2 … 127.0.0.254, then 127.0.1.2 …
    static func sourceAddress(_ index: Int) throws -> SocketAddress {
        guard index < 253 * 256 else { throw ValidationError("--addresses: at most \(253 * 256)") }
        return try SocketAddress(ipAddress: "127.0.\(index / 253).\(index % 253 + 2)", port: 0)
    }
}
