/// Page images recently served, decoded, by deck, page and size: when a slide changes, every
/// phone asks for the same image at once, and a deck never changes, so one database read serves
/// them all. Bounded by bytes; the least recently used go first.
actor DeckImageCache {
    struct Key: Hashable, Sendable {
        var project: String
        var deckID: String
        var page: Int
        var size: Deck.ImageSize
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
