/// What one field check sweep measured where it was heard: each tone's level, the level of the
/// same frequency while the other tones played (the room's and the microphone's noise there),
/// and their difference.
public struct FieldCheckReading: Sendable {
    /// One value per tone of ``FieldCheckSignal`` (the first ``FieldCheckSignal/toneCount``).
    public typealias Values = FixedArray<Tuple32<Float>, Float>

    /// The stream sample at which the analysis found the sweep's first tone under way (within a
    /// 20 ms hop of its start).
    public var startSample: Int
    /// Each tone's level, dB relative to a full-scale sine (a tone played at amplitude 0.5 and
    /// heard unchanged reads -6 dB).
    public var levelDB: Values
    /// The same frequency's level while the sweep's other tones played, dB.
    public var noiseDB: Values
    /// `levelDB - noiseDB`: how far each tone stood above what else the microphone heard there.
    public var snrDB: Values

    /// A reading of nothing heard (every value `-200`, `0` dB above noise).
    public init(startSample: Int = 0) {
        self.startSample = startSample
        levelDB = Values(repeating: -200)
        noiseDB = Values(repeating: -200)
        snrDB = Values(repeating: 0)
    }

    /// The mean level of the tones inside `band`, dB.
    public func level(of band: ModemBand) -> Float { mean(levelDB, band) }

    /// The mean of `snrDB` over the tones inside `band`.
    public func snr(of band: ModemBand) -> Float { mean(snrDB, band) }

    private func mean(_ values: Values, _ band: ModemBand) -> Float {
        let tones = FieldCheckSignal.tones(in: band)
        var sum: Float = 0
        for tone in tones { sum += values[tone] }
        return sum / Float(tones.count)
    }
}

/// Which bands a phone can use, judged from a field check: a band is usable when its
/// calibration burst decoded, or when its tones stood ``clearSNR`` dB or more above the noise.
///
/// Why 18 dB: a sweep tone's margin is measured in the analyser's 75 Hz noise bandwidth
/// (+18.8 dB to dB-Hz), and a burst at the same peak level carries 8.0 dB less mean power than
/// one tone (8 tones of amplitude 1/√8 with their crest factor), so a margin of M dB is a burst
/// at about M + 10.8 dB-Hz: 18 dB is 28.8 dB-Hz, above the modem's 28 dB-Hz bar (≥ 99 %).
/// Measured with `nearcast check` on the sequence in white noise: margins of 14-16 dB decoded
/// none of 12 calibration bursts, 18-20 dB all 12.
public enum FieldCheckVerdict: Sendable, Equatable, CaseIterable {
    case both
    case high
    case low
    case neither

    /// The tones' mean margin over the noise above which a band counts as usable.
    public static let clearSNR: Float = 18

    /// The verdict for a phone that measured `reading` (nil: it heard no sweep) and decoded the
    /// calibration burst of the high band (`highDecoded`) and of the low one (`lowDecoded`).
    public static func judge(_ reading: FieldCheckReading?, highDecoded: Bool, lowDecoded: Bool) -> FieldCheckVerdict {
        judge(highSNR: reading?.snr(of: .high), lowSNR: reading?.snr(of: .low), highDecoded: highDecoded, lowDecoded: lowDecoded)
    }

    /// The verdict from the bands' margins (nil: no sweep heard) and their bursts decoded.
    public static func judge(highSNR: Float?, lowSNR: Float?, highDecoded: Bool, lowDecoded: Bool) -> FieldCheckVerdict {
        let high = highDecoded || (highSNR.map { $0 >= clearSNR } ?? false)
        let low = lowDecoded || (lowSNR.map { $0 >= clearSNR } ?? false)
        switch (high, low) {
        case (true, true): return .both
        case (true, false): return .high
        case (false, true): return .low
        case (false, false): return .neither
        }
    }

    /// `both`, `high`, `low` or `neither`, as the hub stores it.
    public var name: String {
        switch self {
        case .both: "both"
        case .high: "high"
        case .low: "low"
        case .neither: "neither"
        }
    }

    /// What a venue should do about a phone with this verdict.
    public var advice: String {
        switch self {
        case .both: "this phone hears both bands: the high band (18.5-20 kHz, the least audible) serves it"
        case .high: "this phone hears only the high band (18.5-20 kHz): keep the box on high or both"
        case .low: "this phone does not hear the high band but hears the low one (15-16.5 kHz): set the box to low or both"
        case .neither: "this phone hears neither band here: move closer to a speaker, raise the level, or have it join by the presenter's code"
        }
    }
}
