/// What the phones of one row heard (`ReachRow`): counts only, added to report by report, so a
/// row never holds a phone, only how many phones did what. One visit's report is one phone
/// (`phones` 1) and its figures; a later report of the same visit adds its figures less the
/// earlier report's (`ReachReceipts`), so a phone is counted once however often it reports.
///
/// The order of `values` is the database's columns' (`columns`) and a receipt's: a column added
/// goes last, and a receipt of another length is not taken back (`init?(values:)`).
package struct ReachCounts: Sendable, Equatable {
    /// Upper edges of the first-token histogram's buckets, ms; the last bucket is everything past
    /// the last edge. Fine where phones hear the box (a burst every 1.44 s), coarse beyond.
    package static let firstTokenEdgesMs: [Int64] = [1_000, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000, 7_500, 10_000, 15_000, 30_000]
    /// One bucket more than edges.
    package static var firstTokenBuckets: Int { firstTokenEdgesMs.count + 1 }

    /// Visits: each one phone.
    package var phones: Int64 = 0
    /// Phones that decoded a token (they have a first-token time).
    package var heard: Int64 = 0
    /// Heard phones by their first-token time's bucket (`firstTokenEdgesMs`).
    package var firstToken = [Int64](repeating: 0, count: ReachCounts.firstTokenBuckets)
    /// Phones by the rate their browser captured at: 44.1 kHz, 48 kHz, another.
    package var rate44100: Int64 = 0
    package var rate48000: Int64 = 0
    package var rateOther: Int64 = 0
    /// Phones whose browser kept each of its own processing on, though the page asked for it off.
    package var echoCancellationOn: Int64 = 0
    package var noiseSuppressionOn: Int64 = 0
    package var autoGainControlOn: Int64 = 0
    /// Phones that measured the high band (18.5-20 kHz), and the sum of their levels in tenths of
    /// a dB (the mean is the one divided by the other).
    package var highPhones: Int64 = 0
    package var highLevelDeciDb: Int64 = 0
    /// The same for the low band (15-16.5 kHz).
    package var lowPhones: Int64 = 0
    package var lowLevelDeciDb: Int64 = 0
    /// Bursts the phones' decoders demodulated (sync candidates), and tokens they decoded.
    package var burstsDetected: Int64 = 0
    package var burstsDecoded: Int64 = 0

    package init() {}

    /// The database's column of each of `values`, in the same order.
    package static let columns: [String] = ["phones", "heard"] + (0..<firstTokenBuckets).map { "first_token_\($0)" } + [
        "rate_44100", "rate_48000", "rate_other", "echo_cancellation_on", "noise_suppression_on", "auto_gain_control_on",
        "high_phones", "high_level_decidb", "low_phones", "low_level_decidb", "bursts_detected", "bursts_decoded",
    ]

    /// Every count, in `columns`' order.
    package var values: [Int64] {
        [phones, heard] + firstToken + [rate44100, rate48000, rateOther, echoCancellationOn, noiseSuppressionOn, autoGainControlOn,
                                        highPhones, highLevelDeciDb, lowPhones, lowLevelDeciDb, burstsDetected, burstsDecoded]
    }

    /// The counts `values` lists; nil when it does not list one per column.
    package init?(values: [Int64]) {
        guard values.count == Self.columns.count else { return nil }
        var next = values.makeIterator()
        func take() -> Int64 { next.next() ?? 0 }
        phones = take()
        heard = take()
        firstToken = (0..<Self.firstTokenBuckets).map { _ in take() }
        rate44100 = take()
        rate48000 = take()
        rateOther = take()
        echoCancellationOn = take()
        noiseSuppressionOn = take()
        autoGainControlOn = take()
        highPhones = take()
        highLevelDeciDb = take()
        lowPhones = take()
        lowLevelDeciDb = take()
        burstsDetected = take()
        burstsDecoded = take()
    }

    /// Whether every count is zero (a report that changed nothing writes nothing).
    package var isZero: Bool { values.allSatisfy { $0 == 0 } }

    package static func + (left: ReachCounts, right: ReachCounts) -> ReachCounts {
        ReachCounts(values: zip(left.values, right.values).map { $0 &+ $1 }) ?? left
    }

    package static prefix func - (counts: ReachCounts) -> ReachCounts {
        ReachCounts(values: counts.values.map { 0 &- $0 }) ?? counts
    }

    /// The first-token histogram's bucket of `ms`.
    package static func firstTokenBucket(ms: Int64) -> Int {
        firstTokenEdgesMs.firstIndex { ms <= $0 } ?? firstTokenEdgesMs.count
    }

    /// The median first-token time, from the histogram: inside the bucket that holds the middle
    /// phone, as far along it as that phone's rank (the bucket's lower edge for the last, open
    /// bucket); nil when no phone heard. Within one bucket's width of the true median.
    package var medianFirstTokenMs: Int64? {
        let counts = firstToken.map { max(0, $0) }
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let middle = Double(total) / 2
        var below: Int64 = 0
        for (bucket, count) in counts.enumerated() where count > 0 {
            if Double(below + count) >= middle {
                let lower = bucket == 0 ? 0 : Self.firstTokenEdgesMs[bucket - 1]
                guard bucket < Self.firstTokenEdgesMs.count else { return lower }
                let width = Double(Self.firstTokenEdgesMs[bucket] - lower)
                return lower + Int64((width * (middle - Double(below)) / Double(count)).rounded())
            }
            below += count
        }
        return nil
    }
}
