import NearcastCore

// The listener's decoder: NearcastCore's `BurstDecoder`, unchanged, behind a small C ABI that
// the page's Worker calls (web/page/listener-worker.js, and decode.html). Nothing is imported from the page: the
// module owns its memory, and the Worker reaches the input buffer and the results through the
// addresses these functions return.
//
// One decoder at a time (the page listens to one microphone): `nc_open` replaces it.
//
// Built by tools/build-web with Embedded Swift for wasm32, linked with wasi-libc for malloc and
// the maths functions, and importing nothing: the two libc functions that would reach WASI are
// defined here instead: `putchar` (the Embedded runtime writes a `fatalError` message with it)
// and `arc4random_buf` (the seed of Swift's hashing), which draws on entropy the page hands over
// with `nc_seed` (from `crypto.getRandomValues`).

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
}

/// The decoder and its buffers. The module's functions run on the one Worker thread that
/// instantiated it, so nothing here is shared between threads.
final class ListenerDecoder {
    let decoder: BurstDecoder
    let input: UnsafeMutableBufferPointer<Float>
    var results: [BurstRecord]
    var resultCount = 0
    var dropped = 0

    init(decoder: BurstDecoder) {
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
            timeScalePPM: burst.timeScalePPM, tonalShare: burst.tonalShare)
        resultCount += 1
    }
}

nonisolated(unsafe) var listener: ListenerDecoder?

/// Makes a decoder for audio at `sampleRate` (44,100 or 48,000): 0, or -1 for a rate the modem
/// cannot use.
@_expose(wasm, "nc_open") @_cdecl("nc_open")
public func ncOpen(_ sampleRate: Int32) -> Int32 {
    listener = nil
    messageLength = 0
    guard let decoder = try? BurstDecoder(sampleRate: Int(sampleRate)) else { return -1 }
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

/// The Embedded runtime's last words land here: after a trap the page reads them from memory and
/// shows them, instead of a bare "unreachable". Only `fatalError` writes a message in this
/// -Osize build; a failed `precondition` traps without one, and the page says "unreachable".
let messageCapacity = 1_024
nonisolated(unsafe) let messageBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: messageCapacity)
nonisolated(unsafe) var messageLength = 0

@_cdecl("putchar")
public func putchar(_ character: Int32) -> Int32 {
    if character == 10 && messageLength == 0 { return character }   // no leading blank line
    if messageLength < messageCapacity {
        messageBuffer[messageLength] = UInt8(truncatingIfNeeded: character)
        messageLength += 1
    }
    return character
}

/// The address of the runtime's last message (`nc_message_length` bytes of UTF-8).
@_expose(wasm, "nc_message") @_cdecl("nc_message")
public func ncMessage() -> UnsafeMutablePointer<UInt8> { messageBuffer }

/// The length of the runtime's last message, 0 if it wrote none.
@_expose(wasm, "nc_message_length") @_cdecl("nc_message_length")
public func ncMessageLength() -> Int32 { Int32(messageLength) }

/// The source behind `arc4random_buf`: SplitMix64 from the core, seeded by the page.
nonisolated(unsafe) var entropy = SplitMix64(seed: 0x6E65_6172_6361_7374)

/// Mixes 64 bits of the page's entropy into the generator behind `arc4random_buf`.
@_expose(wasm, "nc_seed") @_cdecl("nc_seed")
public func ncSeed(_ seed: UInt64) {
    entropy = SplitMix64(seed: seed ^ entropy.next())
}

@_cdecl("arc4random_buf")
public func arc4random_buf(_ buffer: UnsafeMutableRawPointer?, _ count: Int) {
    guard let buffer else { return }
    for index in 0..<count {
        buffer.storeBytes(of: UInt8(truncatingIfNeeded: entropy.next()), toByteOffset: index, as: UInt8.self)
    }
}
