/// The field check's calibration signal: what `audio sweep` plays and what the hub's `/check`
/// page listens for. A venue learns from it, before a talk, how much of each band reaches the
/// audience's phones through their microphones, cases and browsers.
///
/// The sequence (3.94 s):
/// 1. a stepped sweep: 19 tones, 12,000 to 21,000 Hz in 500 Hz steps, each in a 100 ms slot
///    (80 ms of tone with 5 ms raised-cosine ramps, then 20 ms of silence). Steps rather than a
///    continuous chirp, because a phone then measures each frequency over 80 ms of steady tone,
///    and the order of the tones in time is what tells the sweep from any other sound;
/// 2. 300 ms of silence, then the calibration token (``testToken``) as a burst in the high band;
/// 3. 300 ms of silence, then the same burst in the low band.
///
/// Every tone's peak is the broadcast level (the encoder's amplitude), the level of the bursts
/// themselves: what the sweep measures is what a burst would get.
public enum FieldCheckSignal {
    /// The first tone.
    public static let firstToneHz = 12_000
    /// The steps between tones.
    public static let toneStepHz = 500
    /// 12,000 ... 21,000 Hz: 21 kHz is below a 44.1 kHz phone's Nyquist frequency (22,050 Hz).
    public static let toneCount = 19
    /// One tone's slot, of which the last ``gapMilliseconds`` are silent.
    public static let slotMilliseconds = 100
    /// The silence closing each slot (a room's echo of one tone then falls into the next slot,
    /// where the analyser counts it as that frequency's noise, not as its own tone).
    public static let gapMilliseconds = 20
    /// The raised-cosine ramp at each end of a tone (no click: a click is broadband).
    public static let rampMilliseconds = 5
    /// The silence before each calibration burst.
    public static let burstGapMilliseconds = 300
    /// The token both calibration bursts carry (the direct token "test", as `audio test` plays).
    public static let testToken = Token(kind: .direct, packed: 0x7465_7374, count: 4)!

    /// Tone `index`'s frequency (0 ..< ``toneCount``).
    public static func toneHz(_ index: Int) -> Int { firstToneHz + index * toneStepHz }

    /// The tones inside `band`'s grid (18,500-20,000 Hz: tones 13-16; 15,000-16,500 Hz: 6-9).
    public static func tones(in band: ModemBand) -> Range<Int> {
        let first = (band.firstToneHz - firstToneHz + toneStepHz - 1) / toneStepHz
        let last = (band.lastToneHz - firstToneHz) / toneStepHz
        return first..<(last + 1)
    }

    /// Samples of the sweep at `sampleRate`.
    public static func sweepSamples(sampleRate: Int) -> Int { toneCount * sampleRate * slotMilliseconds / 1000 }

    /// Samples of the whole sequence (the sweep, then a gap and a burst in each band).
    public static func totalSamples(rate: ModemRate) -> Int {
        sweepSamples(sampleRate: rate.sampleRate) + 2 * (rate.sampleRate * burstGapMilliseconds / 1000 + rate.burstSamples)
    }
}
