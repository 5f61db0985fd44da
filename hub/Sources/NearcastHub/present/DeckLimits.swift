import Foundation

/// What rendering and keeping decks may cost the hub, set in the config file's `decks` object
/// (`{ renderSeconds: 120, rendersAtOnce: 1, storagePerProjectMB: 200 }`) or `serve`'s flags.
/// They apply with `--limits off` too: they bound the machine, not the callers.
public struct DeckLimits: Sendable, Equatable {
    /// Wall-clock time for one deck's rendering (pdfinfo and both pdftoppm runs), from when its
    /// render starts; past it every process of the render is killed and the upload is a 422.
    /// The same figure is each poppler process's CPU limit.
    public var renderSeconds = 120
    /// Decks rendered at once; other uploads wait (up to twice `renderSeconds`) for a turn. Default:
    /// half the cores, at least one (one on a two-core box), so the hub keeps a core.
    public var rendersAtOnce = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// The page images a project's decks may hold in the database, in MB (MiB); a deck that
    /// would pass it is refused (507) and nothing is stored.
    public var storagePerProjectMB = 200

    public init() {}

    static let keys: Set<String> = ["renderSeconds", "rendersAtOnce", "storagePerProjectMB"]

    /// The quota in bytes.
    package var storagePerProjectBytes: Int { storagePerProjectMB * 1024 * 1024 }

    /// Each setting's allowed range, named in the error for one outside it.
    static let ranges: [String: ClosedRange<Int>] = [
        "renderSeconds": 1...3_600, "rendersAtOnce": 1...64, "storagePerProjectMB": 1...1_000_000,
    ]

    /// The first setting outside its range, in words; nil when all are fine.
    public func problem() -> String? {
        for (name, value) in [("renderSeconds", renderSeconds), ("rendersAtOnce", rendersAtOnce),
                              ("storagePerProjectMB", storagePerProjectMB)] {
            if let range = Self.ranges[name], !range.contains(value) {
                return "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)"
            }
        }
        return nil
    }
}

extension DeckLimits: Decodable {
    /// Each setting present replaces its default; a fraction or a value out of range is an error
    /// naming the setting.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ConfigKey.self)
        func read(_ name: String, _ value: inout Int) throws {
            if let given = try container.wholeNumber(name, in: Self.ranges[name] ?? 1...Int.max) { value = given }
        }
        try read("renderSeconds", &renderSeconds)
        try read("rendersAtOnce", &rendersAtOnce)
        try read("storagePerProjectMB", &storagePerProjectMB)
    }
}
