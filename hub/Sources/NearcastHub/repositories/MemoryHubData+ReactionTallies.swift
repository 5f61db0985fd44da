/// The shows' reactions by slide and minute in memory: a count per show and `ReactionTally.Key`,
/// added to batch by batch as the database's rows are.
extension MemoryHubData {
    func addTallies(_ key: BeaconRef, _ tallied: [ReactionTally]) {
        for tally in tallied { reactionTallies[key, default: [:]][tally.key, default: 0] += tally.count }
    }

    /// The project's tallies that `include` takes, by show and key.
    func tallies(project: String, _ include: @Sendable (BeaconRef, ReactionTally.Key) -> Bool) -> [ReactionTally] {
        reactionTallies.filter { $0.key.project == project }.flatMap { show, counts in
            counts.filter { include(show, $0.key) }.map { ReactionTally(slide: $0.key.slide, minuteMs: $0.key.minuteMs, value: $0.key.value,
                                                                        count: $0.value) }
        }
    }
}

/// The shows' tallies in memory (`MemoryHubData`).
struct MemoryReactionTallyRepository: ReactionTallyRepository {
    let data: MemoryHubData

    func tallies(project: String, deckID: String, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally] {
        await data.tallies(project: project) { _, key in key.slide.deckID == deckID && key.minuteMs >= fromMs && key.minuteMs < untilMs }
    }

    func tallies(_ beacon: BeaconRef, fromMs: Int64, untilMs: Int64) async throws -> [ReactionTally] {
        await data.tallies(project: beacon.project) { show, key in show == beacon && key.minuteMs >= fromMs && key.minuteMs < untilMs }
    }
}
