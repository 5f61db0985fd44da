import NearcastCore
import NearcastDrivers

/// Feeds the streaming decoder (both bands at once) everything a microphone captured since the
/// last call: the one capture drain the daemon's listener and `selftest` share, for real and
/// simulated microphones.
/// Its buffers are made in `init`; draining allocates nothing.
final class CapturedAudioDecoder {
    let input: AudioInput
    let decoder: MultiBandDecoder
    private var buffer: [Float]

    init(input: AudioInput) throws(ModemRateError) {
        self.input = input
        decoder = try MultiBandDecoder(sampleRate: input.sampleRate, bands: [.high, .low])
        buffer = [Float](repeating: 0, count: max(input.periodFrames, 1024))
    }

    /// Decodes what has arrived; `onBurst` hears each burst completed.
    func decodeAvailable(_ onBurst: (DecodedBurst) -> Void) {
        let input = self.input, decoder = self.decoder
        buffer.withUnsafeMutableBufferPointer { span in
            while true {
                let got = input.read(into: span)
                if got == 0 { break }
                decoder.push(UnsafeBufferPointer(rebasing: span[0..<got]), onBurst)
            }
        }
    }

    /// Decodes what has arrived, then flushes the decoder (at the end of a capture).
    func finish(_ onBurst: (DecodedBurst) -> Void) {
        decodeAvailable(onBurst)
        decoder.finish(onBurst)
    }
}
