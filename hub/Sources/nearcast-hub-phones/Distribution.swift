/// A set of latencies summed up: how many, and the 50th and 99th percentiles (nearest rank), the
/// least and the most, in milliseconds.
struct Distribution: Encodable, Sendable {
    var n: Int
    var minMs: Double?
    var p50Ms: Double?
    var p99Ms: Double?
    var maxMs: Double?

    init(milliseconds values: [Double]) {
        let sorted = values.sorted()
        n = sorted.count
        guard !sorted.isEmpty else { return }
        func rank(_ p: Double) -> Double {
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return Self.rounded(sorted[min(sorted.count - 1, max(0, index))])
        }
        minMs = Self.rounded(sorted[0])
        p50Ms = rank(0.5)
        p99Ms = rank(0.99)
        maxMs = Self.rounded(sorted[sorted.count - 1])
    }

    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// "n 1000, p50 12.3 ms, p99 45.6 ms, max 78.9 ms".
    var text: String {
        guard n > 0, let minMs, let p50Ms, let p99Ms, let maxMs else { return "n 0" }
        return "n \(n), min \(Self.format(minMs)) ms, p50 \(Self.format(p50Ms)) ms, p99 \(Self.format(p99Ms)) ms, max \(Self.format(maxMs)) ms"
    }

    static func format(_ ms: Double) -> String {
        ms >= 100 ? String(Int(ms.rounded())) : String(Double((ms * 10).rounded()) / 10)
    }
}
