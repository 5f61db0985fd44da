import NearcastCore

// The listener's decoder: NearcastCore's `MultiBandDecoder` (a `BurstDecoder` per band, both
// bands heard at once), unchanged, behind a small C ABI that
// the page calls (web/page/nearcast-modem.js, used by listener-worker.js and decode.js).
// Nothing is imported from the page: the module owns its memory, and the page reaches the input
// buffer and the results through the addresses these functions return.
//
// One decoder at a time (the page listens to one microphone): `nc_open` replaces it.
// Built by tools/build-web with Embedded Swift for wasm32; RuntimeHooks.swift holds the libc
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
}

/// The decoder and its buffers. The module's functions run on the one Worker thread that
/// instantiated it, so nothing here is shared between threads.
final class ListenerDecoder {
    let decoder: MultiBandDecoder
    let input: UnsafeMutableBufferPointer<Float>
    var results: [BurstRecord]
    var resultCount = 0
    var dropped = 0

    init(decoder: MultiBandDecoder) {
        self.decoder = decoder
        input = .allocate(capacity: inputCapacity)
        input.initialize(repeating: 0)
        results = [BurstRecord](repeating: BurstRecord(), count: resultCapacity)
    }

    deinit { input.deallocate() }

    func record(_ burst: DecodedBurst) {
        guard resultCount < resultCapacity else { dropped += 1; return }
        results[resultCount] = BurstRecord(
            kind: burst.token.kind == .eid ? 1 : 0, length: Int32(burst.token.count), payload: burst.token.packed,
            startSample: Double(burst.startSample), syncScore: burst.syncScore, symbolSNR: burst.symbolSNR,
            timeScalePPM: burst.timeScalePPM, tonalShare: burst.tonalShare, band: burst.band == .low ? 1 : 0)
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
    listener = ListenerDecoder(decoder: decoder)
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
    listener.decoder.push(UnsafeBufferPointer(rebasing: listener.input[0..<Int(count)]), listener.record)
    return Int32(listener.resultCount)
}

/// Decodes what is still held at the end of a stream (bursts waiting for their audio).
@_expose(wasm, "nc_finish") @_cdecl("nc_finish")
public func ncFinish() -> Int32 {
    guard let listener else { return -1 }
    listener.resultCount = 0
    listener.decoder.finish(listener.record)
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
