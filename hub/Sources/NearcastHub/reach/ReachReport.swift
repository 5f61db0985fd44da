/// `POST /v1/reach`'s body: what one visit of the listener page heard, sent once per visit and
/// again when it changes (docs/present-api.md, "The rooms' reach"). Anonymous: the kind of
/// phone, never the phone; no id, and the hub keeps no address.
package struct ReachReport: Decodable, Sendable {
    /// A report is well under 1 KiB; anything near this is not from the page.
    package static let maximumBodyBytes = 8 * 1024
    /// The longest receipt taken back: a receipt names a row's key (two labels of up to 64
    /// characters, four bytes each) and its counts, in base64.
    package static let maximumReceiptCharacters = 2_000

    /// The box the phone follows (or heard last), one of the project's active beacons; absent or
    /// null when it found none.
    package var beaconName: String?
    /// The phone's kind, as the check page names it (`Android 14`, `Chrome 131`).
    package var platform: String
    package var browser: String
    /// `heard`, `code`, `qr` or `none` (`ReachJoin`).
    package var joinedBy: String
    /// What the browser granted of the page's microphone request (its track's settings); absent
    /// when the page got no microphone.
    package var capture: Capture?
    /// Each band's level as the page's meter read it, at most one per band.
    package var bands: [Band]?
    /// The decoder's counts since the page opened.
    package var bursts: Bursts?
    /// From the microphone's start to the first token decoded, ms; absent when none was.
    package var firstTokenMs: Double?
    /// The receipt the hub answered this visit's previous report with: its figures are taken
    /// back, so the visit counts once.
    package var receipt: String?

    /// The microphone's settings the browser reports (`MediaStreamTrack.getSettings()`), each
    /// absent when the browser does not say.
    package struct Capture: Decodable, Sendable {
        package var sampleRate: Double?
        package var echoCancellation: Bool?
        package var noiseSuppression: Bool?
        package var autoGainControl: Bool?
    }

    /// A band's level at the microphone, dBFS per analyser bin (-200...10).
    package struct Band: Decodable, Sendable {
        package var band: String
        package var levelDb: Double
    }

    /// Bursts the decoder demodulated and tokens it decoded (each 0...10,000,000).
    package struct Bursts: Decodable, Sendable {
        package var detected: Double
        package var decoded: Double
    }

    /// Every field checked (the first bad one a 400 naming its JSON path) and the phone's row on
    /// `day`: its key and its counts as one phone.
    package func row(day: Int64) throws(APIError) -> ReachRow {
        if let beaconName { try ReportFields.checkBeaconName(beaconName) }
        try ReportFields.checkLabel(platform, field: "platform")
        try ReportFields.checkLabel(browser, field: "browser")
        guard let joined = ReachJoin(rawValue: joinedBy) else {
            throw APIError.invalid("joinedBy", "'\(joinedBy.prefix(40))' must be heard, code, qr or none")
        }
        // A phone that joined joined a box, and one that found none joined nothing.
        if joined == .none, beaconName != nil {
            throw APIError.invalid("joinedBy", "is none, but the report names a box: heard, code or qr")
        }
        if joined != .none, beaconName == nil {
            throw APIError.invalid("beaconName", "is needed: a phone that joined (\(joined.rawValue)) joined a box")
        }
        var counts = ReachCounts()
        counts.phones = 1
        if let firstTokenMs {
            let ms = try ReportFields.whole(firstTokenMs.rounded(), 0...86_400_000, field: "firstTokenMs")
            counts.heard = 1
            counts.firstToken[ReachCounts.firstTokenBucket(ms: ms)] = 1
        } else if joined == .heard {
            throw APIError.invalid("firstTokenMs", "is needed: a phone that joined by ear heard a token")
        }
        if let capture { try add(capture, to: &counts) }
        try add(bands ?? [], to: &counts)
        if let bursts {
            counts.burstsDetected = try ReportFields.whole(bursts.detected, 0...10_000_000, field: "bursts.detected")
            counts.burstsDecoded = try ReportFields.whole(bursts.decoded, 0...10_000_000, field: "bursts.decoded")
        }
        if let receipt, receipt.count > Self.maximumReceiptCharacters {
            throw APIError.invalid("receipt", "is longer than \(Self.maximumReceiptCharacters) characters: not a receipt this hub gave")
        }
        return ReachRow(key: ReachRowKey(beaconName: beaconName ?? "", day: day, platform: platform, browser: browser, joinedBy: joined),
                        counts: counts)
    }

    private func add(_ capture: Capture, to counts: inout ReachCounts) throws(APIError) {
        if let sampleRate = capture.sampleRate {
            switch try ReportFields.whole(sampleRate, 1_000...1_000_000, field: "capture.sampleRate") {
            case 44_100: counts.rate44100 = 1
            case 48_000: counts.rate48000 = 1
            default: counts.rateOther = 1
            }
        }
        counts.echoCancellationOn = capture.echoCancellation == true ? 1 : 0
        counts.noiseSuppressionOn = capture.noiseSuppression == true ? 1 : 0
        counts.autoGainControlOn = capture.autoGainControl == true ? 1 : 0
    }

    private func add(_ bands: [Band], to counts: inout ReachCounts) throws(APIError) {
        guard bands.count <= 2 else { throw APIError.invalid("bands", "lists \(bands.count) bands; at most 2 are taken (high, low)") }
        try ReportFields.checkBands(bands, name: \.band) { band, field throws(APIError) in
            try ReportFields.check(band.levelDb, -200...10, field: field + ".levelDb")
            let deciDb = Int64((band.levelDb * 10).rounded())
            if band.band == "high" {
                counts.highPhones = 1
                counts.highLevelDeciDb = deciDb
            } else {
                counts.lowPhones = 1
                counts.lowLevelDeciDb = deciDb
            }
        }
    }
}
