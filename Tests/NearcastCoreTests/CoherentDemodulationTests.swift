import XCTest
@testable import NearcastCore

/// The coherent second pass of ``SoftDemodulator``: the phase fit and the metric that uses it.
final class CoherentDemodulationTests: XCTestCase {
    let rate = try! ModemRate(sampleRate: 48_000)
    let tones = ModemProfile.toneCount
    let symbols = ModemProfile.symbolCount

    /// Baseband data section: symbol n carries `sent[n]` with the phase the model predicts for
    /// (θ, ω, β) plus `sentOffsets[n]` if any, then `extra` (symbol, tone, phase offset) tones of
    /// the same amplitude, then complex Gaussian noise of variance `noise` per sample.
    func dataSection(sent: [UInt8], theta: Double, omega: Double, beta: Double, noise: Double,
                     sentOffsets: [Int: Double] = [:],
                     extra: [(symbol: Int, tone: Int, offset: Double)] = [], seed: UInt64 = 1) -> ([Float], [Float]) {
        let ns = rate.basebandSymbolSamples
        let fsb = Double(rate.basebandRate)
        var re = [Float](repeating: 0, count: symbols * ns)
        var im = [Float](repeating: 0, count: symbols * ns)
        func add(symbol: Int, tone: Int, offset: Double) {
            let hz = Double(ModemProfile.firstToneHz + tone * ModemProfile.toneSpacingHz - ModemProfile.basebandCenterHz)
            let ratio = Double(ModemProfile.firstToneHz + tone * ModemProfile.toneSpacingHz) / Double(ModemProfile.basebandCenterHz)
            let phase = theta + omega * Double(symbol) * ratio + beta * Double(tone - tones / 2) + offset
            for m in 0..<ns {
                let angle = phase + 2 * Double.pi * hz * Double(m) / fsb
                re[symbol * ns + m] += Float(cos(angle))
                im[symbol * ns + m] += Float(sin(angle))
            }
        }
        for symbol in 0..<symbols { add(symbol: symbol, tone: Int(sent[symbol]), offset: sentOffsets[symbol] ?? 0) }
        for tone in extra { add(symbol: tone.symbol, tone: tone.tone, offset: tone.offset) }
        var generator = SplitMix64(seed: seed)
        func gaussian() -> Double {
            let u = (Double(generator.next() >> 11) + 1) * 0x1p-53
            let v = Double(generator.next() >> 11) * 0x1p-53
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        let sigma = (noise / 2).squareRoot()
        for i in re.indices {
            re[i] += Float(sigma * gaussian())
            im[i] += Float(sigma * gaussian())
        }
        return (re, im)
    }

    func randomTones(seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<symbols).map { _ in UInt8(generator.next() % UInt64(tones)) }
    }

    func measure(_ demodulator: SoftDemodulator, _ section: ([Float], [Float])) {
        section.0.withUnsafeBufferPointer { re in
            section.1.withUnsafeBufferPointer { im in _ = demodulator.measure(re: re, im: im, start: 0) }
        }
    }

    func coherentLLRs(_ demodulator: SoftDemodulator, sent: [UInt8], minimumCoherence: Float = 0.3) -> [Float]? {
        var llrs = [Float](repeating: 0, count: ModemProfile.codedBits)
        let snr = sent.withUnsafeBufferPointer { tones in
            llrs.withUnsafeMutableBufferPointer {
                demodulator.coherentLLRs(into: $0, sentTones: tones, minimumCoherence: minimumCoherence,
                                         phaseConcentration: 8)
            }
        }
        return snr == nil ? nil : llrs
    }

    func testThePhaseFitFindsTheCarrierTheTimeScaleTurnAndTheTimingSlope() {
        let demodulator = SoftDemodulator(rate: rate)
        let sent = randomTones(seed: 3)
        for (theta, omega, beta) in [(0.7, 0.31, -0.2), (-2.5, -0.62, 0.43), (3.0, 0.0, 0.0)] {
            measure(demodulator, dataSection(sent: sent, theta: theta, omega: omega, beta: beta, noise: 0.05))
            XCTAssertNotNil(coherentLLRs(demodulator, sent: sent))
            let fit = demodulator.lastPhaseFit
            XCTAssertGreaterThan(fit.coherence, 0.95)
            XCTAssertEqual(fit.omega, omega, accuracy: 0.011, "ω")
            XCTAssertEqual(fit.beta, beta, accuracy: 0.013, "β")
            // θ from the fitted unit phasor, after the timing slope's share at tone 8 (none).
            XCTAssertEqual(Double(fit.carrierRe), cos(theta), accuracy: 0.1, "cos θ")
            XCTAssertEqual(Double(fit.carrierIm), sin(theta), accuracy: 0.1, "sin θ")
        }
    }

    func testNoiseFitsNoPhaseAndGetsNoSecondPass() {
        let demodulator = SoftDemodulator(rate: rate)
        for seed: UInt64 in 1...20 {
            var (re, im) = dataSection(sent: randomTones(seed: seed), theta: 0, omega: 0, beta: 0, noise: 1, seed: seed)
            // Take the tones out again: noise alone.
            let (tonesRe, tonesIm) = dataSection(sent: randomTones(seed: seed), theta: 0, omega: 0, beta: 0, noise: 0)
            for i in re.indices { re[i] -= tonesRe[i]; im[i] -= tonesIm[i] }
            measure(demodulator, (re, im))
            XCTAssertNil(coherentLLRs(demodulator, sent: randomTones(seed: seed + 100)), "seed \(seed)")
            XCTAssertLessThan(demodulator.lastCoherence, 0.3, "seed \(seed)")
        }
    }

    func testTheCoherentMetricPrefersTheToneWhosePhaseFits() {
        // Symbol 10 holds two tones of the same strength, values 0b0000 and 0b1111: energy
        // alone cannot tell them apart. The one in phase with the rest of the burst (the fit)
        // pulls every bit of the symbol its way by about 2κ against the noncoherent metric.
        let symbol = 10
        let fifteen = Int(FrameCodec.gray(15))
        for zeroInPhase in [true, false] {
            let demodulator = SoftDemodulator(rate: rate)
            var sent = randomTones(seed: 5)
            sent[symbol] = FrameCodec.gray(0)
            // One of the two is half a turn out of phase.
            measure(demodulator, dataSection(sent: sent, theta: 1.1, omega: 0.2, beta: 0.1, noise: 3,
                                             sentOffsets: [symbol: zeroInPhase ? 0 : Double.pi],
                                             extra: [(symbol, fifteen, zeroInPhase ? Double.pi : 0)]))
            var plain = [Float](repeating: 0, count: ModemProfile.codedBits)
            _ = plain.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
            guard let coherent = coherentLLRs(demodulator, sent: sent) else { return XCTFail("no second pass") }
            var checked = 0
            for coded in 0..<ModemProfile.codedBits where FrameCodec.position(ofCodedBit: coded).symbol == symbol {
                // A positive LLR says 1: toward 0b1111.
                if zeroInPhase {
                    XCTAssertLessThan(coherent[coded], plain[coded] - 8, "coded bit \(coded), 0b0000 in phase")
                } else {
                    XCTAssertGreaterThan(coherent[coded], plain[coded] + 8, "coded bit \(coded), 0b1111 in phase")
                }
                checked += 1
            }
            XCTAssertEqual(checked, ModemProfile.bitsPerSymbol)
        }
    }

    func testLLRsStayFiniteWhenMostOfTheDataSectionIsEmpty() {
        // A candidate near the start or end of a stream sees the ring's zeros: a few symbols of
        // tone, the rest exactly 0. N0 must not collapse to 0 (infinite LLRs, NaN in Viterbi).
        let demodulator = SoftDemodulator(rate: rate)
        var (re, im) = dataSection(sent: randomTones(seed: 9), theta: 0, omega: 0, beta: 0, noise: 0)
        let ns = rate.basebandSymbolSamples
        for i in (3 * ns)..<re.count { re[i] = 0; im[i] = 0 }
        measure(demodulator, (re, im))
        var llrs = [Float](repeating: 0, count: ModemProfile.codedBits)
        let snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        XCTAssertTrue(snr.isFinite, "Es/N0 \(snr)")
        XCTAssertTrue(llrs.allSatisfy(\.isFinite), "non-finite LLRs: \(llrs.filter { !$0.isFinite }.count)")
    }
}
