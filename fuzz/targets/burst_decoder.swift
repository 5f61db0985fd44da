/// fuzz: Float32 samples (NaN, infinities and huge values too) into BurstDecoder at 48 or 44.1 kHz in blocks of sizes from the input, looped past one second, then finish; no crash or trap, every burst is plausible (a valid token, a start inside the audio, scores, SNR, share and time scale finite and in range), the same samples in one block give the same bursts, and push and finish allocate nothing after the first second
@testable import NearcastCore

/// Input: flags (bit 0: 44.1 kHz; bits 1-2: the samples are played 1-4 times), n = byte % 8,
/// n block sizes (u16, samples), then little-endian Float32 samples.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBurstDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let rate = flags & 1 == 0 ? 48_000 : 44_100
    let passes = Int(flags >> 1 & 3) + 1
    let blockCount = Int(input.byte() % 8)
    var sizes = (0..<blockCount).map { _ in Int(input.byte()) | Int(input.byte()) << 8 }
    if !sizes.contains(where: { $0 > 0 }) { sizes = [1_024] }
    let raw = input.rest()
    var samples = [Float](repeating: 0, count: raw.count / 4)
    for index in samples.indices {
        let bits = UInt32(raw[4 * index]) | UInt32(raw[4 * index + 1]) << 8
            | UInt32(raw[4 * index + 2]) << 16 | UInt32(raw[4 * index + 3]) << 24
        samples[index] = Float(bitPattern: bits)
    }
    guard !samples.isEmpty else { return 0 }
    warmUp()
    // Loop the samples at least far enough that the decoder runs past its first second.
    var stream: [Float] = []
    let total = max(passes * samples.count, rate + rate / 4)
    stream.reserveCapacity(total)
    while stream.count < total { stream += samples.prefix(total - stream.count) }

    let inBlocks = decode(stream, rate: rate, sizes: sizes, countAllocations: true)
    let inOne = decode(stream, rate: rate, sizes: [stream.count], countAllocations: false)
    require(inBlocks == inOne, "blocks of \(sizes) decode \(inBlocks.map(\.token)), one block \(inOne.map(\.token))")
    return 0
}

func decode(_ stream: [Float], rate: Int, sizes: [Int], countAllocations: Bool) -> [DecodedBurst] {
    let decoder = try! BurstDecoder(sampleRate: rate)
    var bursts: [DecodedBurst] = []
    bursts.reserveCapacity(64)                               // appending must not allocate
    var allocated = ""
    stream.withUnsafeBufferPointer { all in
        var offset = 0
        var turn = 0
        while offset < all.count {
            let count = min(sizes[turn % sizes.count], all.count - offset)
            turn += 1
            let block = UnsafeBufferPointer(rebasing: all[offset..<offset + count])
            let warm = offset >= rate                             // past the first second
            offset += count
            let allocations = AllocationCounter.allocations { decoder.push(block) { bursts.append($0) } }
            if countAllocations && warm && allocations > 0 && allocated.isEmpty {
                allocated = "push of \(count) samples at \(offset - count) allocated \(allocations) times"
            }
        }
    }
    let pushed = decoder.samplesPushed
    require(pushed == stream.count, "samplesPushed \(pushed) after pushing \(stream.count)")
    let allocations = AllocationCounter.allocations { decoder.finish { bursts.append($0) } }
    if countAllocations && allocations > 0 && allocated.isEmpty { allocated = "finish allocated \(allocations) times" }
    require(allocated.isEmpty, allocated)

    let largestScale = Float(ModemProfile.maximumTimeScalePPM)
    for burst in bursts {
        let token = burst.token
        require((1...8).contains(token.count) && (token.kind == .direct || token.count == 8), "token \(token)")
        require(token.count == 8 || token.packed >> UInt64(8 * token.count) == 0, "token \(token) has bytes beyond its length")
        require(burst.sampleRate == rate && burst.format == ModemProfile.formatVersion, "burst at \(burst.sampleRate) Hz")
        require(burst.startSample >= 0 && burst.startSample < decoder.samplesPushed,
                "burst starts at \(burst.startSample), \(decoder.samplesPushed) samples pushed")
        require(burst.syncScore.isFinite && burst.syncScore > 0 && burst.syncScore <= 1.001, "sync score \(burst.syncScore)")
        require(burst.tonalShare.isFinite && burst.tonalShare >= decoder.configuration.minimumTonalShare
                && burst.tonalShare <= 1.001, "tonal share \(burst.tonalShare)")
        require(burst.symbolSNR.isFinite, "symbol SNR \(burst.symbolSNR)")
        require(burst.timeScalePPM.isFinite && abs(burst.timeScalePPM) <= largestScale * 1.001,
                "time scale \(burst.timeScalePPM) ppm")
        require(burst.offsetSeconds.isFinite, "offset \(burst.offsetSeconds) s")
    }
    require(decoder.framesTried <= 2 * decoder.candidatesDecoded + decoder.secondArrivalTries,
            "\(decoder.framesTried) CRC checks for \(decoder.candidatesDecoded) candidates")
    return bursts
}

nonisolated(unsafe) var warmedUp = false

/// The runtime builds type metadata on first use: one real burst at each rate through a
/// decoder first, so that a decode path's first run is not taken for an allocation.
func warmUp() {
    guard !warmedUp else { return }
    warmedUp = true
    for rate in [48_000, 44_100] {
        let encoder = try! BurstEncoder(sampleRate: rate)
        encoder.start(try! Token(kind: .direct, hex: "0102"))
        var audio = [Float](repeating: 0, count: encoder.rate.burstSamples + rate / 2)
        audio.withUnsafeMutableBufferPointer { buffer in
            _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: buffer[(rate / 10)...]))
        }
        let decoder = try! BurstDecoder(sampleRate: rate)
        var found = 0
        audio.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
        decoder.finish { _ in found += 1 }
        require(found == 1, "the warm-up burst at \(rate) Hz decoded \(found) times")
    }
}
