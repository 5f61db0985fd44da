/// The pages of a show the audience may open: each page that stayed on the projected screen for
/// at least ``dwellMs``. A page jumped past (End then Home, a thumbnail, keys pressed in quick
/// succession) was never really shown, so it is not handed to the phones. The live page is
/// always open to them besides (it is on the screen): ``Show/openPages``.
///
/// Kept in the database as ascending ranges, `"1-3,5,9-12"`: a 300-page deck shown in order is
/// one range.
package struct ShownPages: Sendable, Equatable {
    /// How long a page must stay on the screen to count as shown.
    package static let dwellMs: Int64 = 2_000

    /// Ascending, disjoint, not adjacent.
    private(set) var ranges: [ClosedRange<Int>]

    package init(ranges: [ClosedRange<Int>] = []) {
        self.ranges = []
        for range in ranges { for page in range { insert(page) } }
    }

    /// The stored text's pages; what does not parse is left out (the column is only written here).
    package init(text: String) {
        self.init()
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", maxSplits: 1).compactMap { Int($0) }
            guard let low = bounds.first, low >= 1, bounds.count == (part.contains("-") ? 2 : 1) else { continue }
            let high = bounds.count == 2 ? bounds[1] : low
            guard high >= low, high - low < 100_000 else { continue }
            insertRange(low...high)
        }
    }

    package var text: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }

    package var pages: [Int] { ranges.flatMap { Array($0) } }

    package var highest: Int? { ranges.last?.upperBound }

    package func contains(_ page: Int) -> Bool { ranges.contains { $0.contains(page) } }

    package mutating func insert(_ page: Int) { insertRange(page...page) }

    private mutating func insertRange(_ new: ClosedRange<Int>) {
        var merged = new
        var kept: [ClosedRange<Int>] = []
        for range in ranges {
            if range.upperBound + 1 < merged.lowerBound || merged.upperBound + 1 < range.lowerBound {
                kept.append(range)
            } else {
                merged = min(range.lowerBound, merged.lowerBound)...max(range.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }
}
