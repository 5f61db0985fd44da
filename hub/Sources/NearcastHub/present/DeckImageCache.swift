/// Page images recently served, decoded, by deck, page and size: when a slide changes, every
/// phone asks for the same image at once, and a deck never changes, so one database read serves
/// them all. Bounded by bytes; the least recently used go first.
actor DeckImageCache {
    struct Key: Hashable, Sendable {
        var project: String
        var deckID: String
        var page: Int
        var size: DeckStore.ImageSize
    }

    let maximumBytes: Int
    private var entries: [Key: (bytes: [UInt8], used: UInt64)] = [:]
    private var totalBytes = 0
    private var tick: UInt64 = 0

    init(maximumBytes: Int = 64 * 1024 * 1024) { self.maximumBytes = maximumBytes }

    func image(_ key: Key, load: @Sendable () async throws -> [UInt8]?) async throws -> [UInt8]? {
        tick += 1
        if let entry = entries[key] {
            entries[key]?.used = tick
            return entry.bytes
        }
        guard let bytes = try await load() else { return nil }
        if entries[key] == nil, bytes.count <= maximumBytes {
            entries[key] = (bytes, tick)
            totalBytes += bytes.count
            while totalBytes > maximumBytes, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
                entries[oldest.key] = nil
                totalBytes -= oldest.value.bytes.count
            }
        }
        return bytes
    }

    /// Forgets a deleted deck's images.
    func remove(project: String, deckID: String) {
        for key in entries.keys where key.project == project && key.deckID == deckID {
            totalBytes -= entries[key]?.bytes.count ?? 0
            entries[key] = nil
        }
    }
}

/// Shows and reaction choices as a reaction checks them, read at most once a second per show
/// and project: a thousand reactions a second must not be three thousand database reads.
actor ShowCache {
    private let shows: any ShowRepository
    private let choices: any ReactionChoicesRepository
    private var showEntries: [ShowFeed.Key: (show: ShowStore.Show?, readMs: Int64)] = [:]
    private var choiceEntries: [String: (choices: ReactionChoices, readMs: Int64)] = [:]
    static let maximumAgeMs: Int64 = 1_000

    init(shows: any ShowRepository, choices: any ReactionChoicesRepository) {
        self.shows = shows
        self.choices = choices
    }

    func show(_ key: ShowFeed.Key, nowMs: Int64) async throws -> ShowStore.Show? {
        if let entry = showEntries[key], nowMs - entry.readMs < Self.maximumAgeMs { return entry.show }
        let show = try await shows.get(project: key.project, beaconName: key.beaconName)
        showEntries[key] = (show, nowMs)
        if showEntries.count > 10_000 { showEntries = showEntries.filter { nowMs - $0.value.readMs < Self.maximumAgeMs } }
        return show
    }

    func choices(project: String, nowMs: Int64) async throws -> ReactionChoices {
        if let entry = choiceEntries[project], nowMs - entry.readMs < Self.maximumAgeMs { return entry.choices }
        let found = try await choices.get(project: project)
        choiceEntries[project] = (found, nowMs)
        return found
    }

    /// A presenter changed the choices here: this instance sees them at once.
    func forget(project: String) { choiceEntries[project] = nil }
}
