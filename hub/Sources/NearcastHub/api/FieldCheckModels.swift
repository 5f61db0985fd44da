import Foundation
import Hummingbird

// A field check's result: what one phone measured of a box's calibration sweep and test bursts
// (docs/venue-operator.md, "Field check results on the hub"). Anonymous: the phone's kind, not
// the phone.

/// One tone of the calibration sweep as the phone measured it.
package struct FieldCheckTone: Codable, Sendable, Equatable {
    /// The tone's frequency, 1,000-24,000 Hz.
    package var hz: Double
    /// Its level at the microphone, dBFS (-200...10).
    package var levelDb: Double
    /// Its level over the noise around it, dB (-100...200).
    package var snrDb: Double
}

/// One audio band as the phone heard it: the sweep's tones in it, and its test burst.
package struct FieldCheckBand: Codable, Sendable, Equatable {
    /// The names of the box's audio bands: high is 18.5-20 kHz, low 15-16.5 kHz.
    package static let names: Set<String> = ["high", "low"]

    /// `high` or `low`.
    package var band: String
    /// How far the sweep's tones inside the band stood above the noise there (their mean), dB
    /// (-100...200).
    package var snrDb: Double
    /// Whether the page decoded the burst's token.
    package var decoded: Bool
}

/// `POST /v1beta1/fieldchecks`' body.
package struct FieldCheckRequest: Decodable, Sendable {
    /// The verdicts the page may give: the band it recommends for this room.
    package static let verdicts: Set<String> = ["both", "high", "low", "neither"]
    /// The capture rates a browser's audio runs at.
    package static let sampleRates: Set<Int> = [44_100, 48_000]
    package static let maximumLabelCharacters = ReportFields.maximumLabelCharacters
    package static let maximumTones = 40
    /// Bodies are a few KiB (40 tones at most); anything near this is not from the page.
    package static let maximumBodyBytes = 16 * 1024

    /// The box the phone resolved from the tokens it heard, or nil (none).
    package var beaconName: String?
    /// The phone's system and the browser, short (`Android 14`, `Chrome 131`): kinds of phone,
    /// never a whole user agent.
    package var platform: String
    package var browser: String
    /// Read as a number, not an integer: JSONDecoder reports 48000.5 for an Int as malformed
    /// JSON, naming no field.
    package var sampleRate: Double
    package var tones: [FieldCheckTone]
    package var bands: [FieldCheckBand]
    package var verdict: String

    /// `sampleRate` once `validate` has passed.
    package var sampleRateHz: Int { Int(exactly: sampleRate) ?? 0 }

    /// Every field checked; the first bad one is a 400 naming its JSON path.
    package func validate() throws(APIError) {
        if let beaconName { try ReportFields.checkBeaconName(beaconName) }
        try ReportFields.checkLabel(platform, field: "platform")
        try ReportFields.checkLabel(browser, field: "browser")
        guard let rate = Int(exactly: sampleRate), Self.sampleRates.contains(rate) else {
            throw APIError.invalid("sampleRate", "\(sampleRate) must be 44100 or 48000")
        }
        guard (1...Self.maximumTones).contains(tones.count) else {
            throw APIError.invalid("tones", "lists \(tones.count) tones; 1 to \(Self.maximumTones) are taken")
        }
        for (index, tone) in tones.enumerated() {
            let field = "tones[\(index)]"
            try ReportFields.check(tone.hz, 1_000...24_000, field: field + ".hz")
            try ReportFields.check(tone.levelDb, -200...10, field: field + ".levelDb")
            try ReportFields.check(tone.snrDb, -100...200, field: field + ".snrDb")
        }
        guard (1...2).contains(bands.count) else {
            throw APIError.invalid("bands", "lists \(bands.count) bands; 1 or 2 are taken (high, low)")
        }
        try ReportFields.checkBands(bands, name: \.band) { band, field throws(APIError) in
            try ReportFields.check(band.snrDb, -100...200, field: field + ".snrDb")
        }
        guard Self.verdicts.contains(verdict) else {
            throw APIError.invalid("verdict", "'\(verdict.prefix(40))' must be both, high, low or neither")
        }
    }
}

/// A stored field check result, as the API answers it.
package struct FieldCheckJSON: Codable, Sendable {
    /// The most results one list answers.
    package static let maximumListed = 1_000

    /// The hub's id of the result: 16 lowercase hex digits.
    package var id: String
    /// When the hub stored it (RFC 3339, UTC, milliseconds).
    package var createTime: String
    /// Absent when the phone resolved no box.
    package var beaconName: String?
    package var platform: String
    package var browser: String
    package var sampleRate: Int
    package var tones: [FieldCheckTone]
    package var bands: [FieldCheckBand]
    package var verdict: String

    package init(id: String, createTime: String, beaconName: String? = nil, platform: String, browser: String,
                 sampleRate: Int, tones: [FieldCheckTone], bands: [FieldCheckBand], verdict: String) {
        self.id = id
        self.createTime = createTime
        self.beaconName = beaconName
        self.platform = platform
        self.browser = browser
        self.sampleRate = sampleRate
        self.tones = tones
        self.bands = bands
        self.verdict = verdict
    }
}

/// `POST /v1beta1/fieldchecks`' answer: the stored result.
package struct FieldCheckCreatedJSON: ResponseEncodable, Sendable {
    package var fieldCheck: FieldCheckJSON
}

/// `GET /v1beta1/fieldchecks`' answer: results newest first.
package struct FieldCheckListJSON: ResponseEncodable, Sendable {
    package var fieldChecks: [FieldCheckJSON]
}
