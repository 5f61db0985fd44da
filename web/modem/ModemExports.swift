import NearcastCore

// The listener's decoder: NearcastCore's `MultiBandDecoder` (a `BurstDecoder` per band, both
// bands heard at once), unchanged, behind a small C ABI that
// the page calls (web/page/nearcast-modem.js, used by listener-worker.js and decode.js).
// Nothing is imported from the page: the module owns its memory, and the page reaches the input
// buffer and the results through the addresses these functions return.
//
// One decoder at a time (the page listens to one microphone): `nc_open` replaces it.
// Built by tools/setup/build-web with Embedded Swift for wasm32; RuntimeHooks.swift holds the libc
// functions the module defines itself so that it imports nothing.

/// The largest number of samples one `nc_push` takes (a Worker drains its ring in blocks).
let inputCapacity = 8_192
/// Bursts one push can report; a push of `inputCapacity` samples holds at most one burst's end,
/// so this is generous. Any beyond it are counted in `nc_bursts_dropped`.
let resultCapacity = 16

/// What one decoded burst leaves for the page to read.
struct BurstRecord {
    var kind: Int32 = 0
    var length: Int32 = 0
    var payload: UInt64 = 0
    var startSample: Double = 0
    var syncScore: Float = 0
    var symbolSNR: Float = 0
    var timeScalePPM: Float = 0
    var tonalShare: Float = 0
    /// 0 the high band (18.5-20 kHz), 1 the low band (15-16.5 kHz).
    var band: Int32 = 0
    /// Bursts combined to give the token (1: this one alone).
    var copies: Int32 = 1
}

/// Field check readings one push can report (a sweep takes 3.94 s; a push at most 0.19 s).
let readingCapacity = 4

/// The decoder and its buffers. The module's functions run on the one Worker thread that
/// instantiated it, so nothing here is shared between threads.
final class ListenerDecoder {
    let decoder: MultiBandDecoder
    let sampleRate: Int
    let input: UnsafeMutableBufferPointer<Float>
    var results: [BurstRecord]
    var resultCount = 0
    var dropped = 0
    /// The field check's analyser, when the page asked for it (`nc_check_enable`): the check
    /// page measures the sweep; the listener does not pay for it.
    var analyzer: FieldCheckAnalyzer?
    var readings: [FieldCheckReading]
    var readingCount = 0

    init(decoder: MultiBandDecoder, sampleRate: Int) {
        self.decoder = decoder
        self.sampleRate = sampleRate
        input = .allocate(capacity: inputCapacity)
        input.initialize(repeating: 0)
        results = [BurstRecord](repeating: BurstRecord(), count: resultCapacity)
        readings = [FieldCheckReading](repeating: FieldCheckReading(), count: readingCapacity)
    }

    func record(_ reading: FieldCheckReading) {
        guard readingCount < readingCapacity else { return }
        readings[readingCount] = reading
        readingCount += 1
    }

    deinit { input.deallocate() }

    func record(_ burst: DecodedBurst) {
        guard resultCount < resultCapacity else { dropped += 1; return }
        results[resultCount] = BurstRecord(
            kind: burst.token.kind == .eid ? 1 : 0, length: Int32(burst.token.count), payload: burst.token.packed,
            startSample: Double(burst.startSample), syncScore: burst.syncScore, symbolSNR: burst.symbolSNR,
            timeScalePPM: burst.timeScalePPM, tonalShare: burst.tonalShare, band: burst.band == .low ? 1 : 0,
            copies: Int32(burst.copies))
        resultCount += 1
    }
}

nonisolated(unsafe) var listener: ListenerDecoder?

/// Makes a decoder of both bands for audio at `sampleRate` (44,100 or 48,000): 0, or -1 for a
/// rate the modem cannot use.
@_expose(wasm, "nc_open") @_cdecl("nc_open")
public func ncOpen(_ sampleRate: Int32) -> Int32 {
    listener = nil
    messageLength = 0
    guard let decoder = try? MultiBandDecoder(sampleRate: Int(sampleRate), bands: [.high, .low]) else { return -1 }
    listener = ListenerDecoder(decoder: decoder, sampleRate: Int(sampleRate))
    return 0
}

/// The address of the input buffer (`nc_input_capacity` floats) the page writes samples into.
@_expose(wasm, "nc_input") @_cdecl("nc_input")
public func ncInput() -> UnsafeMutablePointer<Float>? { listener?.input.baseAddress }

/// How many samples one `nc_push` takes at most.
@_expose(wasm, "nc_input_capacity") @_cdecl("nc_input_capacity")
public func ncInputCapacity() -> Int32 { Int32(inputCapacity) }

/// Decodes the first `count` samples of the input buffer: the number of bursts it completed
/// (read them with the `nc_burst_*` functions until the next push), or -1 without a decoder.
@_expose(wasm, "nc_push") @_cdecl("nc_push")
public func ncPush(_ count: Int32) -> Int32 {
    guard let listener, count >= 0, Int(count) <= inputCapacity else { return -1 }
    listener.resultCount = 0
    listener.readingCount = 0
    let samples = UnsafeBufferPointer(rebasing: listener.input[0..<Int(count)])
    listener.decoder.push(samples, listener.record)
    listener.analyzer?.push(samples, listener.record)
    return Int32(listener.resultCount)
}

/// Decodes what is still held at the end of a stream (bursts waiting for their audio).
@_expose(wasm, "nc_finish") @_cdecl("nc_finish")
public func ncFinish() -> Int32 {
    guard let listener else { return -1 }
    listener.resultCount = 0
    listener.readingCount = 0
    listener.decoder.finish(listener.record)
    listener.analyzer?.finish(listener.record)
    return Int32(listener.resultCount)
}

func result(_ index: Int32) -> BurstRecord {
    guard let listener, index >= 0, Int(index) < listener.resultCount else { return BurstRecord() }
    return listener.results[Int(index)]
}

/// The band the burst was heard in: 0 high (18.5-20 kHz), 1 low (15-16.5 kHz).
@_expose(wasm, "nc_burst_band") @_cdecl("nc_burst_band")
public func ncBurstBand(_ index: Int32) -> Int32 { result(index).band }

/// The token's kind: 0 direct, 1 EID.
@_expose(wasm, "nc_burst_kind") @_cdecl("nc_burst_kind")
public func ncBurstKind(_ index: Int32) -> Int32 { result(index).kind }

/// The token's length in bytes (1...8; 8 for an EID).
@_expose(wasm, "nc_burst_length") @_cdecl("nc_burst_length")
public func ncBurstLength(_ index: Int32) -> Int32 { result(index).length }

/// The token's bytes, packed big-endian into the low `length` bytes (a BigInt in JavaScript).
@_expose(wasm, "nc_burst_payload") @_cdecl("nc_burst_payload")
public func ncBurstPayload(_ index: Int32) -> UInt64 { result(index).payload }

/// The sample (from the stream's start) at which the burst begins.
@_expose(wasm, "nc_burst_start") @_cdecl("nc_burst_start")
public func ncBurstStart(_ index: Int32) -> Double { result(index).startSample }

/// The burst's sync score, 0...1.
@_expose(wasm, "nc_burst_sync") @_cdecl("nc_burst_sync")
public func ncBurstSync(_ index: Int32) -> Float { result(index).syncScore }

/// The burst's estimated Es/N0, dB.
@_expose(wasm, "nc_burst_snr") @_cdecl("nc_burst_snr")
public func ncBurstSNR(_ index: Int32) -> Float { result(index).symbolSNR }

/// The time scale the burst arrived with, ppm.
@_expose(wasm, "nc_burst_time_scale") @_cdecl("nc_burst_time_scale")
public func ncBurstTimeScale(_ index: Int32) -> Float { result(index).timeScalePPM }

/// How clearly the burst's tones stood out, 0.25...1.
@_expose(wasm, "nc_burst_tonal_share") @_cdecl("nc_burst_tonal_share")
public func ncBurstTonalShare(_ index: Int32) -> Float { result(index).tonalShare }

/// How many bursts gave the token (``DecodedBurst/copies``: 1 alone, more when combined).
@_expose(wasm, "nc_burst_copies") @_cdecl("nc_burst_copies")
public func ncBurstCopies(_ index: Int32) -> Int32 { result(index).copies }

/// The burst format the decoder reads (``ModemProfile/formatVersion``).
@_expose(wasm, "nc_format_version") @_cdecl("nc_format_version")
public func ncFormatVersion() -> Int32 { Int32(ModemProfile.formatVersion) }

/// Samples pushed since `nc_open`.
@_expose(wasm, "nc_samples_pushed") @_cdecl("nc_samples_pushed")
public func ncSamplesPushed() -> Double { Double(listener?.decoder.samplesPushed ?? 0) }

/// Sync candidates demodulated since `nc_open` (the decoder's work, beyond the sync search).
@_expose(wasm, "nc_candidates") @_cdecl("nc_candidates")
public func ncCandidates() -> Int32 { Int32(listener?.decoder.candidatesDecoded ?? 0) }

/// Bursts that did not fit in one push's results (0 unless something is badly wrong).
@_expose(wasm, "nc_bursts_dropped") @_cdecl("nc_bursts_dropped")
public func ncBurstsDropped() -> Int32 { Int32(listener?.dropped ?? 0) }

// --- The field check (the hub's /check page) ------------------------------------------------------

/// Starts (1) or stops (0) measuring the field check's sweep beside the decoding: 0, or -1
/// without a decoder.
@_expose(wasm, "nc_check_enable") @_cdecl("nc_check_enable")
public func ncCheckEnable(_ on: Int32) -> Int32 {
    guard let listener else { return -1 }
    listener.analyzer = on != 0 ? try? FieldCheckAnalyzer(sampleRate: listener.sampleRate) : nil
    return 0
}

/// Sweeps measured by the last `nc_push` or `nc_finish` (read them with `nc_check_*`).
@_expose(wasm, "nc_check_count") @_cdecl("nc_check_count")
public func ncCheckCount() -> Int32 { Int32(listener?.readingCount ?? 0) }

func reading(_ index: Int32) -> FieldCheckReading {
    guard let listener, index >= 0, Int(index) < listener.readingCount else { return FieldCheckReading() }
    return listener.readings[Int(index)]
}

func tone(_ tone: Int32) -> Int { min(max(Int(tone), 0), FieldCheckSignal.toneCount - 1) }

func band(_ band: Int32) -> ModemBand { band == 1 ? .low : .high }

/// The sweep's tones (19).
@_expose(wasm, "nc_check_tone_count") @_cdecl("nc_check_tone_count")
public func ncCheckToneCount() -> Int32 { Int32(FieldCheckSignal.toneCount) }

/// Tone `tone`'s frequency, Hz.
@_expose(wasm, "nc_check_tone_hz") @_cdecl("nc_check_tone_hz")
public func ncCheckToneHz(_ index: Int32) -> Int32 { Int32(FieldCheckSignal.toneHz(tone(index))) }

/// The sample at which sweep `index` was found under way.
@_expose(wasm, "nc_check_start") @_cdecl("nc_check_start")
public func ncCheckStart(_ index: Int32) -> Double { Double(reading(index).startSample) }

/// Tone `tone`'s level in sweep `index`, dB of full scale.
@_expose(wasm, "nc_check_level") @_cdecl("nc_check_level")
public func ncCheckLevel(_ index: Int32, _ toneIndex: Int32) -> Float { reading(index).levelDB[tone(toneIndex)] }

/// The level of tone `tone`'s frequency while the other tones played, dB of full scale.
@_expose(wasm, "nc_check_noise") @_cdecl("nc_check_noise")
public func ncCheckNoise(_ index: Int32, _ toneIndex: Int32) -> Float { reading(index).noiseDB[tone(toneIndex)] }

/// Tone `tone`'s margin over that noise, dB.
@_expose(wasm, "nc_check_snr") @_cdecl("nc_check_snr")
public func ncCheckSNR(_ index: Int32, _ toneIndex: Int32) -> Float { reading(index).snrDB[tone(toneIndex)] }

/// The mean level of the tones in band `band` (0 high, 1 low), dB of full scale.
@_expose(wasm, "nc_check_band_level") @_cdecl("nc_check_band_level")
public func ncCheckBandLevel(_ index: Int32, _ bandIndex: Int32) -> Float { reading(index).level(of: band(bandIndex)) }

/// The mean margin of the tones in band `band` over their noise, dB.
@_expose(wasm, "nc_check_band_snr") @_cdecl("nc_check_band_snr")
public func ncCheckBandSNR(_ index: Int32, _ bandIndex: Int32) -> Float { reading(index).snr(of: band(bandIndex)) }

/// The verdict from the high and low bands' margins (`measured` 0: no sweep was heard, the
/// margins are not read) and whether each band's calibration burst decoded: 0 both, 1 high,
/// 2 low, 3 neither (``FieldCheckVerdict``).
@_expose(wasm, "nc_check_judge") @_cdecl("nc_check_judge")
public func ncCheckJudge(_ measured: Int32, _ highSNR: Float, _ lowSNR: Float, _ highDecoded: Int32, _ lowDecoded: Int32) -> Int32 {
    let verdict = FieldCheckVerdict.judge(highSNR: measured != 0 ? highSNR : nil, lowSNR: measured != 0 ? lowSNR : nil,
                                          highDecoded: highDecoded != 0, lowDecoded: lowDecoded != 0)
    return Int32(FieldCheckVerdict.allCases.firstIndex(of: verdict) ?? 3)
}

/// The calibration bursts' token, packed (the direct token "test").
@_expose(wasm, "nc_check_test_token") @_cdecl("nc_check_test_token")
public func ncCheckTestToken() -> UInt64 { FieldCheckSignal.testToken.packed }
