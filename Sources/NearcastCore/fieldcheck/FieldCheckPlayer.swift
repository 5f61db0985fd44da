/// Plays ``FieldCheckSignal``'s sequence into audio periods: the sweep from its own sine table,
/// then the two calibration bursts through the box's ``MultiBandEncoder`` (the encoder the box
/// broadcasts with, so the bursts are the box's own at its own level, and no second encoder's
/// tables take memory). Allocates nothing after `init`.
///
/// ```swift
/// let player = FieldCheckPlayer(sampleRate: 48_000)
/// player.start()
/// while player.isPlaying { player.render(into: period, encoder: encoder); play(period) }
/// ```
public final class FieldCheckPlayer {
    private enum Phase: Equatable {
        case idle
        case sweep
        case gap(ModemBand)
        case burst(ModemBand)
    }

    /// The sample rate played at.
    public let sampleRate: Int
    private let sine = SineTable()
    private let slotSamples: Int
    private let toneSamples: Int
    private let rampSamples: Int
    private let gapSamples: Int
    private var phase = Phase.idle
    /// Samples into the current phase.
    private var position = 0

    /// A player for audio at `sampleRate`.
    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        slotSamples = sampleRate * FieldCheckSignal.slotMilliseconds / 1000
        toneSamples = sampleRate * (FieldCheckSignal.slotMilliseconds - FieldCheckSignal.gapMilliseconds) / 1000
        rampSamples = sampleRate * FieldCheckSignal.rampMilliseconds / 1000
        gapSamples = sampleRate * FieldCheckSignal.burstGapMilliseconds / 1000
    }

    /// True from `start` until the low band's burst has been rendered.
    public var isPlaying: Bool { phase != .idle }

    /// Begins the sequence from its first tone (again, if it was playing).
    public func start() {
        phase = .sweep
        position = 0
    }

    /// Stops at once.
    public func stop() { phase = .idle }

    /// Writes the sequence's next samples over `buffer` (silence where the sequence is silent),
    /// with tones at `encoder`'s amplitude; returns how many it wrote: `buffer.count`, or fewer
    /// where the sequence ended (the rest of `buffer` is left as it was).
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, encoder: MultiBandEncoder) -> Int {
        var written = 0
        while written < buffer.count && phase != .idle {
            let rest = UnsafeMutableBufferPointer(rebasing: buffer[written...])
            switch phase {
            case .idle:
                break
            case .sweep:
                let count = min(rest.count, FieldCheckSignal.toneCount * slotSamples - position)
                renderSweep(into: UnsafeMutableBufferPointer(rebasing: rest[0..<count]), amplitude: encoder.amplitude)
                written += count
                position += count
                if position == FieldCheckSignal.toneCount * slotSamples { advance(to: .gap(.high)) }
            case .gap(let band):
                let count = min(rest.count, gapSamples - position)
                UnsafeMutableBufferPointer(rebasing: rest[0..<count]).update(repeating: 0)
                written += count
                position += count
                if position == gapSamples {
                    encoder.start(FieldCheckSignal.testToken, in: band)
                    advance(to: .burst(band))
                }
            case .burst(let band):
                rest.update(repeating: 0)
                let count = encoder.render(into: rest)
                written += count
                if encoder.isFinished { advance(to: band == .high ? .gap(.low) : .idle) }
            }
        }
        return written
    }

    private func advance(to next: Phase) {
        phase = next
        position = 0
    }

    private func renderSweep(into span: UnsafeMutableBufferPointer<Float>, amplitude: Float) {
        let rate = Double(sampleRate)
        for index in span.indices {
            let sample = position + index
            let slot = sample / slotSamples
            let inSlot = sample - slot * slotSamples
            guard inSlot < toneSamples else { span[index] = 0; continue }
            var gain: Float = 1
            let fromEnd = toneSamples - 1 - inSlot
            if inSlot < rampSamples || fromEnd < rampSamples {
                let edge = Double(min(inSlot, fromEnd)) / Double(rampSamples)
                gain = Float(0.5 - 0.5 * CoreMath.cos(CoreMath.pi * edge))
            }
            let cycles = Double(FieldCheckSignal.toneHz(slot)) * Double(inSlot) / rate
            span[index] = amplitude * gain * sine.sine(cycles: cycles)
        }
    }
}
