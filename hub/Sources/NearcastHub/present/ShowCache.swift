import NIOConcurrencyHelpers

/// Shows and reaction choices as a reaction, a pass or a phone id is checked against them, read
/// at most once a second per show and project: a thousand reactions a second must not be three
/// thousand database reads. A show is forgotten the moment any instance changes it (`ShowFeed`'s
/// change hook, and the writes here), so a show ended, a new code or joining turned off is seen
/// by the next request: nothing is accepted for a show that has ended.
final class ShowCache: Sendable {
    private let shows: any ShowRepository
    private let choices: any ReactionChoicesRepository
    private struct Entries {
        var shows: [BeaconRef: (show: Show?, readMs: Int64)] = [:]
        var choices: [String: (choices: ReactionChoices, readMs: Int64)] = [:]
        /// Bumped by every forget: a read that began before one is not kept.
        var generation: UInt64 = 0
    }
    private let entries = NIOLockedValueBox(Entries())
    static let maximumAgeMs: Int64 = 1_000

    init(shows: any ShowRepository, choices: any ReactionChoicesRepository) {
        self.shows = shows
        self.choices = choices
    }

    func show(_ key: BeaconRef, nowMs: Int64) async throws -> Show? {
        let (cached, generation) = entries.withLockedValue { entries in
            (entries.shows[key].flatMap { nowMs - $0.readMs < Self.maximumAgeMs ? $0 : nil }, entries.generation)
        }
        if let cached { return cached.show }
        let show = try await shows.get(key)
        entries.withLockedValue { entries in
            guard entries.generation == generation else { return }
            entries.shows[key] = (show, nowMs)
            if entries.shows.count > 10_000 { entries.shows = entries.shows.filter { nowMs - $0.value.readMs < Self.maximumAgeMs } }
        }
        return show
    }

    func choices(project: String, nowMs: Int64) async throws -> ReactionChoices {
        let (cached, generation) = entries.withLockedValue { entries in
            (entries.choices[project].flatMap { nowMs - $0.readMs < Self.maximumAgeMs ? $0 : nil }, entries.generation)
        }
        if let cached { return cached.choices }
        let found = try await choices.get(project: project)
        entries.withLockedValue { entries in
            if entries.generation == generation { entries.choices[project] = (found, nowMs) }
        }
        return found
    }

    /// A presenter changed the choices here: this instance sees them at once.
    func forget(project: String) {
        entries.withLockedValue { entries in
            entries.choices[project] = nil
            entries.generation &+= 1
        }
    }

    /// A show changed (or every show, `nil`, after a gap in the change notifications).
    func forget(_ key: BeaconRef?) {
        entries.withLockedValue { entries in
            if let key { entries.shows[key] = nil } else { entries.shows = [:] }
            entries.generation &+= 1
        }
    }
}
