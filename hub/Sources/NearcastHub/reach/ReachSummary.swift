import Hummingbird

/// `GET /v1/reach`'s answer: the rows of the days asked for, summed per box, and per kind of
/// phone within each box. Sums a hostile replay of receipts pushed below zero read as zero.
package struct ReachSummaryJSON: ResponseEncodable, Sendable {
    /// How many days, ending today (UTC), and the first and last of them (`YYYY-MM-DD`).
    package var days: Int
    package var from: String
    package var to: String
    /// The most days the hub keeps (`limits.reachDaysKept`): the most `?days=` takes.
    package var daysKept: Int
    /// A box each, by beacon name; the phones that found no box last (no `beaconName`).
    package var boxes: [ReachBoxJSON]

    /// The summary of `rows`, counted over `days` days up to `today`.
    package init(rows: [ReachRow], days: Int, daysKept: Int, today: Int64) {
        self.days = days
        self.daysKept = daysKept
        from = ReachDay.date(today - Int64(days) + 1)
        to = ReachDay.date(today)
        let byBox = Dictionary(grouping: rows) { $0.key.beaconName }
        boxes = byBox.keys.sorted { ($0.isEmpty ? 1 : 0, $0) < ($1.isEmpty ? 1 : 0, $1) }.map { ReachBoxJSON(beaconName: $0, rows: byBox[$0] ?? []) }
    }
}

/// One box's phones over the days asked for.
package struct ReachBoxJSON: Encodable, Sendable {
    /// Absent for the phones that found no box.
    package var beaconName: String?
    /// Visits (each a phone), those that decoded a token, and those that joined by the code on
    /// the screen (typed or by the QR code).
    package var phones: Int64
    package var heard: Int64
    package var byCode: Int64
    /// The median time from the microphone's start to the first token, over the phones that
    /// heard (from a histogram: within its bucket); absent when none did.
    package var medianFirstTokenMs: Int64?
    /// Phones by how they joined (`ReachJoin`'s names).
    package var joined: [String: Int64]
    package var capture: ReachCaptureJSON
    /// Each band some phone measured: how many, and their mean level (dBFS per analyser bin).
    package var bands: [ReachBandJSON]
    package var bursts: ReachBurstsJSON
    /// A row per kind of phone, the most phones first.
    package var byBrowser: [ReachBrowserJSON]

    init(beaconName: String, rows: [ReachRow]) {
        self.beaconName = beaconName.isEmpty ? nil : beaconName
        let total = Self.sum(rows)
        phones = total.phones
        heard = total.heard
        byCode = Self.sum(rows.filter { $0.key.joinedBy.bySight }).phones
        medianFirstTokenMs = total.medianFirstTokenMs
        joined = Dictionary(uniqueKeysWithValues: ReachJoin.allCases.map { way in
            (way.rawValue, Self.sum(rows.filter { $0.key.joinedBy == way }).phones)
        })
        capture = ReachCaptureJSON(total)
        bands = [("high", total.highPhones, total.highLevelDeciDb), ("low", total.lowPhones, total.lowLevelDeciDb)]
            .filter { $0.1 > 0 }
            .map { ReachBandJSON(band: $0.0, phones: $0.1, meanLevelDb: (Double($0.2) / Double($0.1)).rounded() / 10) }
        bursts = ReachBurstsJSON(detected: total.burstsDetected, decoded: total.burstsDecoded)
        let kinds = Dictionary(grouping: rows) { [$0.key.browser, $0.key.platform] }
        byBrowser = kinds.map { kind, rows in
            let counts = Self.sum(rows)
            return ReachBrowserJSON(browser: kind[0], platform: kind[1], phones: counts.phones, heard: counts.heard,
                                    byCode: Self.sum(rows.filter { $0.key.joinedBy.bySight }).phones,
                                    medianFirstTokenMs: counts.medianFirstTokenMs)
        }
        .sorted { ($1.phones, $0.browser, $0.platform) < ($0.phones, $1.browser, $1.platform) }
    }

    /// The rows' counts added, each sum at least zero.
    static func sum(_ rows: [ReachRow]) -> ReachCounts {
        let total = rows.reduce(ReachCounts()) { $0 + $1.counts }
        // The level sums are negative by nature (dBFS); only counts of phones are clamped.
        var clamped = ReachCounts(values: total.values.map { max(0, $0) }) ?? total
        clamped.highLevelDeciDb = total.highLevelDeciDb
        clamped.lowLevelDeciDb = total.lowLevelDeciDb
        return clamped
    }
}

/// What the phones' browsers granted of the microphone request: the capture rates, and how many
/// kept each of their own processing on (echo cancellation or noise suppression on, the page
/// hears neither band).
package struct ReachCaptureJSON: Encodable, Sendable {
    /// Phones by rate: `"44100"`, `"48000"`, `"other"`.
    package var sampleRates: [String: Int64]
    package var echoCancellationOn: Int64
    package var noiseSuppressionOn: Int64
    package var autoGainControlOn: Int64

    init(_ counts: ReachCounts) {
        sampleRates = ["44100": counts.rate44100, "48000": counts.rate48000, "other": counts.rateOther]
        echoCancellationOn = counts.echoCancellationOn
        noiseSuppressionOn = counts.noiseSuppressionOn
        autoGainControlOn = counts.autoGainControlOn
    }
}

/// One band's level over the phones that measured it.
package struct ReachBandJSON: Encodable, Sendable {
    package var band: String
    package var phones: Int64
    package var meanLevelDb: Double
}

/// The phones' decoders' counts, summed.
package struct ReachBurstsJSON: Encodable, Sendable {
    package var detected: Int64
    package var decoded: Int64
}

/// One kind of phone (browser and platform) at a box.
package struct ReachBrowserJSON: Encodable, Sendable {
    package var browser: String
    package var platform: String
    package var phones: Int64
    package var heard: Int64
    package var byCode: Int64
    package var medianFirstTokenMs: Int64?
}
