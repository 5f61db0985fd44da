import Glibc
import NearcastBench
@testable import NearcastCore
import XCTest

/// The field check: the box's calibration sequence, and the analyser that finds and measures
/// it in what a phone heard, through the bench's microphone models.
final class FieldCheckTests: XCTestCase {
    /// The whole sequence as the box plays it, at `amplitude`.
    private func sequence(sampleRate: Int = 48_000, amplitude: Float = 0.5, periods: Int = 1024) throws -> [Float] {
        let encoder = try MultiBandEncoder(sampleRate: sampleRate, selection: .high, amplitude: amplitude)
        let player = FieldCheckPlayer(sampleRate: sampleRate)
        player.start()
        var audio: [Float] = []
        var period = [Float](repeating: 0, count: periods)
        while player.isPlaying {
            let count = period.withUnsafeMutableBufferPointer { player.render(into: $0, encoder: encoder) }
            audio += period[0..<count]
        }
        return audio
    }

    /// What `condition` (the bench's channel) makes of `signal`.
    private func heard(_ signal: [Float], _ configure: (inout ChannelCondition) -> Void, sampleRate: Int = 48_000) -> [Float] {
        var condition = ChannelCondition(name: "test", summary: "")
        condition.sampleRate = sampleRate
        condition.cn0 = 60
        configure(&condition)
        return ChannelSimulator(condition).apply(signal, seed: 7).received
    }

    private func analyse(_ audio: [Float], sampleRate: Int = 48_000, chunk: Int = 480) throws -> [FieldCheckReading] {
        let analyzer = try FieldCheckAnalyzer(sampleRate: sampleRate)
        var readings: [FieldCheckReading] = []
        audio.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + chunk)
                analyzer.push(UnsafeBufferPointer(rebasing: all[start..<end])) { readings.append($0) }
                start = end
            }
        }
        analyzer.finish { readings.append($0) }
        return readings
    }

    func testTheSequenceIsTheSweepThenATestBurstInEachBand() throws {
        for rate in [48_000, 44_100] {
            let audio = try sequence(sampleRate: rate)
            XCTAssertEqual(audio.count, FieldCheckSignal.totalSamples(rate: try ModemRate(sampleRate: rate)), "at \(rate) Hz")
            let bursts = try TestSignals.decode(audio, sampleRate: rate, bands: [.high, .low])
            XCTAssertEqual(bursts.map(\.band), [.high, .low], "at \(rate) Hz")
            XCTAssertEqual(bursts.map(\.token), [FieldCheckSignal.testToken, FieldCheckSignal.testToken])
            XCTAssertLessThanOrEqual(audio.map(abs).max() ?? 0, 0.5 + 1e-4, "no sample above the broadcast level")
        }
    }

    func testTheTonesInEachBandAreTheOnesInsideItsGrid() {
        XCTAssertEqual(FieldCheckSignal.tones(in: .high).map(FieldCheckSignal.toneHz), [18_500, 19_000, 19_500, 20_000])
        XCTAssertEqual(FieldCheckSignal.tones(in: .low).map(FieldCheckSignal.toneHz), [15_000, 15_500, 16_000, 16_500])
        XCTAssertEqual(FieldCheckSignal.toneHz(FieldCheckSignal.toneCount - 1), 21_000)
    }

    func testAFlatMicrophoneHearsEveryToneAtTheBroadcastLevel() throws {
        for rate in [48_000, 44_100] {
            let audio = heard(try sequence(sampleRate: rate), { _ in }, sampleRate: rate)
            let readings = try analyse(audio, sampleRate: rate)
            XCTAssertEqual(readings.count, 1, "one sweep at \(rate) Hz")
            let reading = try XCTUnwrap(readings.first)
            // The sweep starts after the channel's 0.5 s of padding, within one 20 ms hop.
            XCTAssertEqual(Double(reading.startSample) / Double(rate), ChannelCondition.padding, accuracy: 0.021)
            for tone in 0..<FieldCheckSignal.toneCount {
                XCTAssertEqual(reading.levelDB[tone], -6.02, accuracy: 0.5, "tone \(FieldCheckSignal.toneHz(tone)) Hz at \(rate) Hz")
                XCTAssertGreaterThan(reading.snrDB[tone], 30, "tone \(FieldCheckSignal.toneHz(tone)) Hz")
            }
            XCTAssertEqual(FieldCheckVerdict.judge(reading, highDecoded: false, lowDecoded: false), .both)
        }
    }

    func testAPhoneThatCutsAbove17kHzIsToldToUseTheLowBand() throws {
        let audio = heard(try sequence(), { $0.phoneCutoffHz = 17_500; $0.noise = .pink; $0.cn0 = 50 })
        let reading = try XCTUnwrap(try analyse(audio).first)
        XCTAssertGreaterThan(reading.snr(of: .low), 20)
        XCTAssertLessThan(reading.snr(of: .high), 3, "the high band's tones are gone")
        XCTAssertLessThan(reading.level(of: .high), reading.level(of: .low) - 30, "what is left there is the noise")
        let bursts = try TestSignals.decode(audio, sampleRate: 48_000, bands: [.high, .low])
        XCTAssertEqual(bursts.map(\.band), [.low], "only the low band's burst decodes")
        XCTAssertEqual(FieldCheckVerdict.judge(reading, highDecoded: false, lowDecoded: true), .low)
    }

    func testAMicrophoneRollingOffAbove19kHzStillHearsTheHighBandLessLoudly() throws {
        let audio = heard(try sequence(), { $0.micRolloffHz = 19_000; $0.noise = .white; $0.cn0 = 45 })
        let reading = try XCTUnwrap(try analyse(audio).first)
        let tone21 = FieldCheckSignal.toneCount - 1
        XCTAssertLessThan(reading.levelDB[tone21], reading.levelDB[0] - 10, "21 kHz is 4th-order Butterworth down")
        XCTAssertGreaterThan(reading.snr(of: .high), FieldCheckVerdict.clearSNR)
    }

    func testNoiseAndSteadyTonesAreNotASweep() throws {
        // A minute of white noise with steady tones at 15 and 19 kHz, and a burst (which is
        // not the sweep either).
        let rate = 48_000
        var generator = SplitMix64(seed: 11)
        var audio = (0..<(60 * rate)).map { _ in Float(0.01 * generator.gaussian()) }
        for i in audio.indices {
            let t = Double(i) / Double(rate)
            audio[i] += 0.1 * Float(CoreMath.sin(2 * CoreMath.pi * 15_000 * t) + CoreMath.sin(2 * CoreMath.pi * 19_000 * t))
        }
        let burst = try TestSignals.burst(FieldCheckSignal.testToken, sampleRate: rate, leadingSilence: 0, band: .low)
        for (index, sample) in burst.enumerated() { audio[rate + index] += sample }
        XCTAssertEqual(try analyse(audio, chunk: 4096).count, 0)
    }

    func testBurstsInDigitalSilenceAreNotASweep() throws {
        // A sim box's speaker: bursts of both bands with nothing between them, where any
        // leakage stands far above a -130 dB floor (this once read as a sweep in the low band).
        var audio: [Float] = []
        for band in [ModemBand.low, .high, .low, .high] {
            audio += try TestSignals.burst(FieldCheckSignal.testToken, sampleRate: 48_000, leadingSilence: 33_000, band: band)
        }
        XCTAssertEqual(try analyse(audio).count, 0)
    }

    func testTwoSweepsInAReverberantNoisyRoomAreTwoReadings() throws {
        var signal = try sequence()
        signal += [Float](repeating: 0, count: 48_000) + signal
        let audio = heard(signal, { $0.shoeBox = ShoeBoxRoom(rt60: 0.8, distance: 5); $0.noise = .pink; $0.cn0 = 40 })
        let readings = try analyse(audio, chunk: 1000)
        XCTAssertEqual(readings.count, 2)
        for reading in readings {
            XCTAssertGreaterThan(reading.snr(of: .high), FieldCheckVerdict.clearSNR)
            XCTAssertGreaterThan(reading.snr(of: .low), FieldCheckVerdict.clearSNR)
        }
    }

    func testTheMarginThatCountsAsUsableIsWhereTheBurstsDecode() throws {
        // White noise such that a 0.5-amplitude tone stands `margin` dB above it in the
        // analyser's 75 Hz: the verdict from the margins alone and the bursts agree on both
        // sides of clearSNR (18 dB).
        for (margin, usable) in [(21.0, true), (13.0, false)] {
            let sigma = (0.125 / (pow(10, margin / 10) * 75 / 24_000)).squareRoot()
            var generator = SplitMix64(seed: 3)
            let audio = try sequence().map { $0 + Float(sigma * generator.gaussian()) }
            let reading = try XCTUnwrap(try analyse(audio).first, "margin \(margin) dB")
            for band in [ModemBand.high, .low] {
                XCTAssertEqual(reading.snr(of: band), Float(margin), accuracy: 2, "\(band.name) at \(margin) dB")
            }
            let bursts = try TestSignals.decode(audio, sampleRate: 48_000, bands: [.high, .low])
            XCTAssertEqual(bursts.count, usable ? 2 : 0, "margin \(margin) dB")
            XCTAssertEqual(FieldCheckVerdict.judge(reading, highDecoded: false, lowDecoded: false), usable ? .both : .neither)
        }
    }

    func testTheVerdictFollowsWhatDecodedFirstAndTheMarginSecond() {
        var reading = FieldCheckReading()
        XCTAssertEqual(FieldCheckVerdict.judge(nil, highDecoded: false, lowDecoded: false), .neither)
        XCTAssertEqual(FieldCheckVerdict.judge(nil, highDecoded: true, lowDecoded: false), .high)
        for tone in FieldCheckSignal.tones(in: .low) { reading.snrDB[tone] = 19 }
        XCTAssertEqual(FieldCheckVerdict.clearSNR, 18)
        XCTAssertEqual(FieldCheckVerdict.judge(reading, highDecoded: false, lowDecoded: false), .low)
        XCTAssertEqual(FieldCheckVerdict.judge(reading, highDecoded: true, lowDecoded: false), .both)
        XCTAssertEqual(FieldCheckVerdict.allCases.map(\.name), ["both", "high", "low", "neither"])
    }
}
