/// Which band a box sends in, or a decoder listens to: one band, or both (a box then alternates
/// them burst by burst, so a phone that hears only one still hears every other burst).
public enum BandSelection: Sendable, Equatable, CaseIterable {
    /// 18.5-20 kHz only (the default).
    case high
    /// 15-16.5 kHz only.
    case low
    /// Both: a box alternates, a decoder listens to both at once.
    case both

    /// The name on the command line, in the board file, the config, the console and JSON.
    public var name: String {
        switch self {
        case .high: "high"
        case .low: "low"
        case .both: "both"
        }
    }

    /// The selection called `name` ("high", "low" or "both"), or nil.
    public init?(name: String) {
        switch name {
        case "high": self = .high
        case "low": self = .low
        case "both": self = .both
        default: return nil
        }
    }

    /// The bands it selects, high first.
    public var bands: [ModemBand] {
        switch self {
        case .high: [.high]
        case .low: [.low]
        case .both: [.high, .low]
        }
    }
}
