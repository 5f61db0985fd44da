/// One row of the rooms' reach: the phones of one box, one day, one kind of phone and one way in,
/// counted (`ReachCounts`). Nothing in it tells one phone from another: the key is what many
/// phones share, and the counts are sums.
package struct ReachRow: Sendable, Equatable {
    package var key: ReachRowKey
    package var counts: ReachCounts

    package init(key: ReachRowKey, counts: ReachCounts) {
        self.key = key
        self.counts = counts
    }

    /// `rows` with the counts of equal keys added together, zero sums left out, in key order: what
    /// one report writes (its new figures and the earlier report's taken back, which may share a
    /// row), one statement per row and the rows always locked in the same order.
    package static func merged(_ rows: [ReachRow]) -> [ReachRow] {
        var sums: [ReachRowKey: ReachCounts] = [:]
        for row in rows { sums[row.key] = (sums[row.key] ?? ReachCounts()) + row.counts }
        return sums.filter { !$0.value.isZero }.map { ReachRow(key: $0.key, counts: $0.value) }.sorted { $0.key < $1.key }
    }
}

/// What the phones of a row share: the box they followed (`""`: none), the day (UTC) they
/// reported on, their kind (platform and browser, as the check page names them) and how they
/// joined.
package struct ReachRowKey: Sendable, Hashable, Comparable {
    /// `beacons/N!HEX`, or `""` for phones that found no box.
    package var beaconName: String
    /// Days since 1970-01-01, UTC (`ReachDay`).
    package var day: Int64
    package var platform: String
    package var browser: String
    package var joinedBy: ReachJoin

    package init(beaconName: String, day: Int64, platform: String, browser: String, joinedBy: ReachJoin) {
        self.beaconName = beaconName
        self.day = day
        self.platform = platform
        self.browser = browser
        self.joinedBy = joinedBy
    }

    package static func < (left: ReachRowKey, right: ReachRowKey) -> Bool {
        (left.day, left.beaconName, left.browser, left.platform, left.joinedBy.rawValue)
            < (right.day, right.beaconName, right.browser, right.platform, right.joinedBy.rawValue)
    }
}

/// How a phone came to its box: by ear (it decoded the box's token), by the code on the
/// presenter's screen typed into the page, by the QR code (or the short address `/j/CODE`), or
/// not at all (it found no box).
package enum ReachJoin: String, Sendable, CaseIterable {
    case heard, code, qr, none

    /// By sight: the code on the screen, typed or scanned.
    package var bySight: Bool { self == .code || self == .qr }
}

/// The reach's days: UTC days since 1970, one clock for every instance and venue.
package enum ReachDay {
    static let milliseconds: Int64 = 86_400_000

    /// The day `ms` (milliseconds since 1970) falls on.
    package static func day(ms: Int64) -> Int64 { ms >= 0 ? ms / milliseconds : (ms - milliseconds + 1) / milliseconds }

    /// `YYYY-MM-DD`.
    package static func date(_ day: Int64) -> String { String(HubClock.timestamp(ms: day * milliseconds).prefix(10)) }
}
