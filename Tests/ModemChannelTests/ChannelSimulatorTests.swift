import XCTest
import NearcastCore
@testable import NearcastBench

/// The channel simulator does what the benchmark table says it does: the numbers the modem is
/// judged by are only as good as these.
final class ChannelSimulatorTests: XCTestCase {
    func testWhiteNoiseSitsAtTheRequestedDensity() {
        for rate in [48_000, 44_100] {
            var generator = SplitMix64(seed: 1)
            let source = NoiseSource(color: .white, sampleRate: rate)
            let noise = source.samples(count: 1 << 17, n0: 1e-6, generator: &generator)
            let density = NoiseSource.bandDensity(noise, sampleRate: rate)
            XCTAssertEqual(10 * log10(density / 1e-6), 0, accuracy: 0.3, "rate \(rate)")
        }
    }

    func testPinkNoiseSitsAtTheRequestedDensityInTheBandAndFallsWithFrequency() {
        var generator = SplitMix64(seed: 2)
        let source = NoiseSource(color: .pink, sampleRate: 48_000)
        let noise = source.samples(count: 1 << 18, n0: 1e-6, generator: &generator)
        XCTAssertEqual(10 * log10(NoiseSource.bandDensity(noise, sampleRate: 48_000) / 1e-6), 0, accuracy: 0.3)
        // Pink: ~10 dB more density per decade lower; 1.9 kHz sits ~10 dB above 19 kHz.
        let low = Self.density(noise, sampleRate: 48_000, hz: 1_900)
        let high = Self.density(noise, sampleRate: 48_000, hz: 19_000)
        XCTAssertEqual(10 * log10(low / high), 10, accuracy: 1.5)
    }

    func testTimeScaleMovesATonesFrequencyByTheScale() {
        let rate = 48_000
        let tone = (0..<48_000).map { sin(2 * Double.pi * 19_000 * Double($0) / Double(rate)) }
        let scaled = TimeScaler().scale(tone, ppm: 4_100)
        XCTAssertEqual(scaled.count, Int(48_000 / 1.0041))
        // Zero crossings over the middle second give the frequency to well under 1 Hz.
        let measured = Self.frequency(of: Array(scaled[2_000..<45_000]), sampleRate: rate)
        XCTAssertEqual(measured, 19_000 * 1.0041, accuracy: 0.5)
        // Amplitude is kept: the band is inside the resampler's passband.
        let peak = scaled[2_000..<45_000].map(abs).max()!
        XCTAssertEqual(peak, 1, accuracy: 0.01)
    }

    func testRoomResponseHasTheRequestedReverberationAndDirectToReverberantRatio() {
        let room = RoomModel(rt60: 0.6, distance: 3, volume: 250, directivity: 2)
        XCTAssertEqual(room.directToReverberantDB, -5.2, accuracy: 0.1)
        var generator = SplitMix64(seed: 3)
        let h = room.impulseResponse(sampleRate: 48_000, generator: &generator)
        XCTAssertEqual(h[0], 1)
        let tail = h.dropFirst().reduce(0) { $0 + $1 * $1 }
        XCTAssertEqual(10 * log10(1 / tail), room.directToReverberantDB, accuracy: 0.01)
        // Energy 100-200 ms vs 300-400 ms: RT60 0.6 s falls 20 dB in 0.2 s.
        let early = h[4_800..<9_600].reduce(0) { $0 + $1 * $1 }
        let late = h[14_400..<19_200].reduce(0) { $0 + $1 * $1 }
        XCTAssertEqual(10 * log10(early / late), 20, accuracy: 1.5)
    }

    func testConditionsKeepTheSignalWhereTheDrawSaysAndAddNothingWhenClean() {
        var condition = ChannelCondition(name: "t", summary: "")
        condition.noise = nil
        let signal: [Float] = [0, 0.5, -0.5, 0.25]
        let (received, draw) = ChannelSimulator(condition).apply(signal, seed: 1)
        let pad = Int(ChannelCondition.padding * 48_000)
        XCTAssertEqual(received.count, signal.count + 2 * pad)
        XCTAssertEqual(Array(received[pad..<(pad + 4)]), signal)
        XCTAssertEqual(draw.inputStart, Double(pad))
        XCTAssertEqual(draw.timeScalePPM, 0)
    }

    func testClippingAndOffsetStayInsideFullScale() {
        var condition = ChannelCondition(name: "t", summary: "")
        condition.overdrive = 4
        condition.dcOffset = 0.2
        let signal = (0..<4_800).map { Float(0.5 * sin(Double($0) * 0.3)) }
        let (received, _) = ChannelSimulator(condition).apply(signal, seed: 1)
        XCTAssertEqual(received.max(), 1)
        XCTAssertEqual(received.min()!, -0.8, accuracy: 1e-6)
    }

    // MARK: - Helpers

    /// One-sided density of `x` around `hz` (±200 Hz).
    static func density(_ x: [Double], sampleRate: Int, hz: Double) -> Double {
        let size = 4096
        let fft = FFT(size: size)
        let k0 = Int((hz - 200) / Double(sampleRate) * Double(size))
        let k1 = Int((hz + 200) / Double(sampleRate) * Double(size))
        var total = 0.0, segments = 0, start = 0
        while start + size <= x.count {
            var re = Array(x[start..<(start + size)])
            var im = [Double](repeating: 0, count: size)
            fft.transform(re: &re, im: &im)
            for k in k0...k1 { total += re[k] * re[k] + im[k] * im[k] }
            segments += 1
            start += size
        }
        return 2 * total / Double(segments * (k1 - k0 + 1)) / (Double(sampleRate) * Double(size))
    }

    /// Frequency from the spacing of the first and last rising zero crossing.
    static func frequency(of x: [Double], sampleRate: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + x[i - 1] / (x[i - 1] - x[i]))
        }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(sampleRate))
    }
}
