import NearcastCore
import XCTest

/// The streaming encoder and decoder allocate nothing after start-up.
final class ModemAllocationTests: XCTestCase {
    func testTheCounterSeesAllocations() throws {
        var sink: [Int] = []
        let counted = AllocationCounter.allocations {
            for i in 0..<10 { sink = Array(repeating: i, count: 100 + i) }
        }
        XCTAssertGreaterThanOrEqual(counted, 10, "the counter must see array allocations")
        XCTAssertEqual(sink.count, 109)
    }

    func testStreamingEncoderAndDecoderAllocateNothingOverMinutesOfAudio() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let rate = 48_000
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        let token = try Token(kind: .eid, hex: "0102030405060708")
        var period = [Float](repeating: 0, count: 1024)
        var found = 0
        var noise: UInt64 = 12345
        // Warm-up: one burst through both, so lazily built state exists before counting.
        encoder.start(token)
        for _ in 0..<60 {
            period.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = 0 }
                encoder.render(into: buffer)
            }
            period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
        }
        // Three minutes of audio: a burst every second, with a little noise, in 1024-frame periods.
        let periods = 3 * 60 * rate / 1024
        let allocations = AllocationCounter.allocations {
            for index in 0..<periods {
                if index % 47 == 0 { encoder.start(token) }
                period.withUnsafeMutableBufferPointer { buffer in
                    for i in buffer.indices {
                        noise = noise &* 6364136223846793005 &+ 1442695040888963407
                        buffer[i] = Float(Int32(truncatingIfNeeded: noise >> 32)) / Float(Int32.max) * 0.01
                    }
                    let rendered = encoder.render(into: buffer)
                    _ = rendered
                }
                period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
            }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(found, 150, "the bursts were decoded while counting")
    }

    func testBothBandsEncoderAndDecoderAllocateNothing() throws {
        // `--band both`: the encoder alternates bands, the decoder listens to both at once, and
        // the band is switched mid-stream as the console does.
        let rate = 48_000
        let encoder = try MultiBandEncoder(sampleRate: rate, selection: .both)
        let decoder = try MultiBandDecoder(sampleRate: rate, bands: [.high, .low])
        let token = try Token(kind: .direct, hex: "0102030405")
        var period = [Float](repeating: 0, count: 960)
        var high = 0, low = 0
        encoder.start(token)
        for _ in 0..<60 {
            period.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = 0 }
                encoder.render(into: buffer)
            }
            period.withUnsafeBufferPointer { decoder.push($0) { if $0.band == .high { high += 1 } else { low += 1 } } }
        }
        let periods = 60 * rate / 960
        let allocations = AllocationCounter.allocations {
            for index in 0..<periods {
                if index % 60 == 0 { encoder.start(token) }
                if index == periods / 2 { encoder.selection = .low }
                if index == periods * 3 / 4 { encoder.selection = .both }
                period.withUnsafeMutableBufferPointer { buffer in
                    for i in buffer.indices { buffer[i] = 0 }
                    encoder.render(into: buffer)
                }
                period.withUnsafeBufferPointer { decoder.push($0) { if $0.band == .high { high += 1 } else { low += 1 } } }
            }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(high, 10, "high-band bursts were decoded while counting")
        XCTAssertGreaterThan(low, 20, "low-band bursts were decoded while counting")
    }

    func testFieldCheckPlayerAndAnalyzerAllocateNothing() throws {
        // `audio sweep` on the box's audio thread, and the check page's analyser beside the
        // decoder: sequences played back to back, each found and measured while counting.
        let rate = 48_000
        let encoder = try MultiBandEncoder(sampleRate: rate, selection: .high)
        let player = FieldCheckPlayer(sampleRate: rate)
        let analyzer = try FieldCheckAnalyzer(sampleRate: rate)
        let decoder = try MultiBandDecoder(sampleRate: rate, bands: [.high, .low])
        var period = [Float](repeating: 0, count: 960)
        var readings = 0, bursts = 0
        var clearTones: Float = 0
        func run(periods: Int) {
            for _ in 0..<periods {
                if !player.isPlaying { player.start() }
                period.withUnsafeMutableBufferPointer { buffer in
                    for i in buffer.indices { buffer[i] = 0 }
                    player.render(into: buffer, encoder: encoder)
                }
                period.withUnsafeBufferPointer { samples in
                    analyzer.push(samples) { reading in
                        readings += 1
                        clearTones += reading.snr(of: .low)
                    }
                    decoder.push(samples) { _ in bursts += 1 }
                }
            }
        }
        run(periods: 10 * rate / 960)
        let allocations = AllocationCounter.allocations { run(periods: 30 * rate / 960) }
        XCTAssertEqual(allocations, 0, "heap allocations on the audio thread")
        XCTAssertGreaterThanOrEqual(readings, 9, "the sweeps were found while counting")
        XCTAssertGreaterThanOrEqual(bursts, 18, "the calibration bursts decoded while counting")
        XCTAssertGreaterThan(clearTones, 0)
    }

    func testEncoderAndDecoderThroughSharedRingsAllocateNothing() throws {
        let rate = 44_100
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        let ring = SampleRing(capacity: 4 * 441)
        let token = try Token(kind: .direct, hex: "0a0b0c0d")
        var found = 0
        var noise: UInt64 = 99
        func period() {
            ring.withWritableRegion(maximum: 441) { region in
                for i in region.indices {
                    noise = noise &* 6364136223846793005 &+ 1442695040888963407
                    region[i] = Float(Int32(truncatingIfNeeded: noise >> 32)) / Float(Int32.max) * 0.01
                }
                if !encoder.isFinished { _ = encoder.render(into: region) }
                return region.count
            }
            decoder.push(from: ring) { _ in found += 1 }
        }
        encoder.start(token)
        for _ in 0..<100 { period() }                  // warm-up: one burst
        let allocations = AllocationCounter.allocations {
            for index in 0..<(60 * 100) {              // one minute in 10 ms periods
                if index % 150 == 0 { encoder.start(token) }
                period()
            }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(found, 35, "the bursts were decoded while counting")
    }

    /// The noise σ for `cn0` dB-Hz against the mean power of one of `encoder`'s bursts:
    /// σ² = P·(fs/2)/10^(C/N0/10). (Leaves `encoder` armed with that burst, rendered.)
    static func noiseSigma(cn0: Double, encoder: BurstEncoder) throws -> Double {
        encoder.start(try Token(kind: .eid, hex: "0102030405060708"))
        var burst = [Float](repeating: 0, count: encoder.rate.burstSamples)
        burst.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
        let power = burst.reduce(0) { $0 + Double($1) * Double($1) } / Double(burst.count)
        return (power * Double(encoder.rate.sampleRate / 2) / pow(10, cn0 / 10)).squareRoot()
    }

    /// Adds near-Gaussian noise of deviation `sigma` to `buffer`: the sum of four uniforms on
    /// [-1, 1] (variance 4/3), scaled. Allocates nothing.
    static func addNoise(_ buffer: UnsafeMutableBufferPointer<Float>, sigma: Double, generator: inout SplitMix64) {
        for i in buffer.indices {
            var sum = 0.0
            for _ in 0..<4 { sum += Double(generator.next() >> 11) * 0x1p-52 - 1 }
            buffer[i] += Float(sigma * sum * (3.0 / 4).squareRoot())
        }
    }

    /// At 27 dB-Hz some first decodes fail, so the slow paths run too: the gate's rejections,
    /// failed CRCs and the second try at the strongest arrival. They must not allocate either.
    func testDecoderAllocatesNothingWhenFirstDecodesFail() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let rate = 48_000
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        var generator = SplitMix64(seed: 2718)
        // The noise for 27 dB-Hz against the burst's own mean power: σ² = P·(fs/2)/10^(C/N0/10).
        let sigma = try Self.noiseSigma(cn0: 27, encoder: encoder)
        var period = [Float](repeating: 0, count: 1024)
        var found = 0
        func fill(startingBurstAt index: Int) {
            if index % 40 == 0 {
                encoder.start(Token(kind: .direct, packed: generator.next(), count: 8)!)
            }
            period.withUnsafeMutableBufferPointer { buffer in
                // render(into:) writes over the buffer: the noise is added after it.
                for i in buffer.indices { buffer[i] = 0 }
                _ = encoder.render(into: buffer)
                Self.addNoise(buffer, sigma: sigma, generator: &generator)
            }
            period.withUnsafeBufferPointer { decoder.push($0) { _ in found += 1 } }
        }
        for index in 0..<60 { fill(startingBurstAt: index) }      // warm-up
        let (demodulatedBefore, retriesBefore, foundBefore) = (decoder.candidatesDecoded, decoder.secondArrivalTries, found)
        let allocations = AllocationCounter.allocations {
            for index in 0..<(2 * 60 * rate / 1024) { fill(startingBurstAt: index) }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        // The slow paths ran inside the counted block.
        let demodulated = decoder.candidatesDecoded - demodulatedBefore
        XCTAssertGreaterThan(demodulated - (found - foundBefore), 0, "some demodulated bursts gave no token")
        XCTAssertGreaterThan(decoder.secondArrivalTries - retriesBefore, 0, "second tries at the strongest arrival were made")
        XCTAssertGreaterThan(found - foundBefore, 100, "the bursts were decoded while counting")
    }

    /// At 24 dB-Hz most bursts fail alone, so the combining path runs: failed bursts kept,
    /// combinations of repeats tried, rejected and accepted, repeats of a decoded token
    /// recognised. Groups of four bursts of one token, the box's spacing apart (1.44 s, 72
    /// periods of 20 ms), then the next token (a rotation at every group's end).
    func testCombiningRepeatsAllocatesNothing() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let run = try CombiningRun()
        for index in 0..<(8 * 72) { run.fill(index) }      // warm-up: two groups
        let (triesBefore, combinedBefore, searchedBefore) = (run.decoder.combinedTries, run.combined, run.decoder.repeatsSearched)
        let allocations = AllocationCounter.allocations {
            for index in (8 * 72)..<(8 * 72 + 60 * CombiningRun.rate / 960) { run.fill(index) }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThan(run.combined - combinedBefore, 3, "tokens came from combined bursts while counting")
        XCTAssertGreaterThan(run.decoder.combinedTries - triesBefore, run.combined - combinedBefore,
                             "some combinations were rejected while counting")
        XCTAssertGreaterThan(run.decoder.repeatsSearched - searchedBefore, 0, "repeats the sync missed were looked for while counting")
    }

    /// Groups of four bursts of one token at 24 dB-Hz, the box's spacing apart (1.44 s, 72
    /// periods of 20 ms), then the next token: most fail alone, so combinations are tried,
    /// rejected and accepted.
    final class CombiningRun {
        static let rate = 48_000
        let encoder: BurstEncoder
        let decoder: BurstDecoder
        var generator = SplitMix64(seed: 2424)
        let sigma: Double
        var period = [Float](repeating: 0, count: 960)
        var token: Token
        var found = 0, combined = 0

        init() throws {
            encoder = try BurstEncoder(sampleRate: Self.rate)
            decoder = try BurstDecoder(sampleRate: Self.rate)
            sigma = try ModemAllocationTests.noiseSigma(cn0: 24, encoder: encoder)
            token = Token(kind: .eid, packed: generator.next(), count: 8)!
        }

        func fill(_ index: Int) {
            if index % 72 == 0 {
                if index % (4 * 72) == 0 { token = Token(kind: .eid, packed: generator.next(), count: 8)! }
                encoder.start(token)
            }
            period.withUnsafeMutableBufferPointer { buffer in
                for i in buffer.indices { buffer[i] = 0 }
                _ = encoder.render(into: buffer)
                ModemAllocationTests.addNoise(buffer, sigma: sigma, generator: &generator)
            }
            period.withUnsafeBufferPointer { decoder.push($0) { burst in
                found += 1
                if burst.copies > 1 { combined += 1 }
            } }
        }
    }

    /// Once per test process, before any test counts: the combining path run until it has
    /// combined. Its first run instantiates generic types' metadata in the Swift runtime (a
    /// one-time allocation in an unoptimised build, not the decoder's); a test that counts over
    /// bursts that combine for the first time in its process would see it. (Run one after the
    /// other, an earlier test did this; CI runs each test in a process of its own.)
    override class func setUp() {
        super.setUp()
        guard let run = try? CombiningRun() else { return }
        for index in 0..<(8 * 72 + 20 * CombiningRun.rate / 960) where run.combined == 0 || index < 8 * 72 { run.fill(index) }
    }

    /// Bursts heard in a reverberant room (a tail 7 times the direct sound's energy, RT60 0.5 s):
    /// the reverberant paths (windows delayed after the first arrival, echo candidates, second
    /// tries) must not allocate either. The room is applied before counting.
    func testDecoderAllocatesNothingInAReverberantRoom() throws {
        let rate = 48_000
        let encoder = try BurstEncoder(sampleRate: rate)
        let decoder = try BurstDecoder(sampleRate: rate)
        var generator = SplitMix64(seed: 31)
        // The room: the direct sound, then 200 reflections at random delays over 0.5 s under an
        // exponential envelope (sparse, so the convolution stays quick in a debug build).
        let tail = rate / 2
        var delays: [Int] = []
        var gains: [Float] = []
        var energy: Float = 0
        for _ in 0..<200 {
            let delay = 96 + Int(generator.next() % UInt64(tail - 96))
            let sign: Float = generator.next() & 1 == 0 ? 1 : -1
            let gain = sign * Float(exp(-6.9 * Double(delay) / Double(tail)))
            delays.append(delay)
            gains.append(gain)
            energy += gain * gain
        }
        let scale = (7 / energy).squareRoot()
        // 20 bursts a second and a half apart, each through the room.
        let spacing = 3 * rate / 2
        var dry = [Float](repeating: 0, count: 20 * spacing)
        for index in 0..<20 {
            encoder.start(Token(kind: .eid, packed: generator.next(), count: 8)!)
            dry.withUnsafeMutableBufferPointer { _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: $0[(index * spacing)...])) }
        }
        var wet = dry
        for (delay, gain) in zip(delays, gains) {
            for n in 0..<(dry.count - delay) { wet[n + delay] += scale * gain * dry[n] }
        }
        var found = 0
        let warmUp = spacing
        wet.withUnsafeBufferPointer { decoder.push(UnsafeBufferPointer(rebasing: $0[0..<warmUp])) { _ in found += 1 } }
        let allocations = AllocationCounter.allocations {
            wet.withUnsafeBufferPointer { all in
                var start = warmUp
                while start < all.count {
                    let end = min(all.count, start + 1024)
                    decoder.push(UnsafeBufferPointer(rebasing: all[start..<end])) { _ in found += 1 }
                    start = end
                }
            }
            decoder.finish { _ in found += 1 }
        }
        XCTAssertEqual(allocations, 0, "heap allocations on the modem's thread")
        XCTAssertGreaterThanOrEqual(found, 18, "the bursts were decoded in the room")
    }

    /// A decoder's first burst allocates nothing either: every buffer is made in `init`. (Arrays
    /// copied from one another in the inits of ChirpPairTiming, ToneOnsetScaleSearch,
    /// MixedRadixFFT and ViterbiDecoder shared one buffer until the first decode wrote to them,
    /// and that write allocated, on the audio thread, at the first burst heard after start-up.
    /// The other tests here warm up with a burst, so they never saw it; fuzz/targets/burst_decoder
    /// found it.)
    func testAFreshDecodersFirstBurstAllocatesNothing() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let rate = 48_000
        let token = try Token(kind: .direct, hex: "0102030405060708")
        let encoder = try BurstEncoder(sampleRate: rate)
        encoder.start(token)
        var audio = [Float](repeating: 0, count: rate / 10 + encoder.rate.burstSamples + rate / 2)
        audio.withUnsafeMutableBufferPointer { _ = encoder.render(into: UnsafeMutableBufferPointer(rebasing: $0[(rate / 10)...])) }
        // The runtime builds type metadata on first use: one burst through another decoder first.
        let other = try BurstDecoder(sampleRate: rate)
        var found = 0
        audio.withUnsafeBufferPointer { other.push($0) { _ in found += 1 } }
        other.finish { _ in found += 1 }
        XCTAssertEqual(found, 1, "the warm-up burst was decoded")

        let decoder = try BurstDecoder(sampleRate: rate)
        var heard: Token?
        let allocations = AllocationCounter.allocations {
            audio.withUnsafeBufferPointer { all in
                var start = 0
                while start < all.count {
                    let end = min(all.count, start + 1024)
                    decoder.push(UnsafeBufferPointer(rebasing: all[start..<end])) { heard = $0.token }
                    start = end
                }
            }
            decoder.finish { heard = $0.token }
        }
        XCTAssertEqual(allocations, 0, "heap allocations in a fresh decoder's first decode")
        XCTAssertEqual(heard, token, "the burst was decoded while counting")
    }
}
