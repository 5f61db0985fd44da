import ArgumentParser
import NearcastCore
import NearcastDrivers

/// `nearcast encode`: one token burst as a WAV file.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Write one token burst as a WAV file (mono, 16-bit PCM unless --float).")

    @Option(help: "The payload in hex: 1-8 bytes for direct tokens, exactly 8 for eid.")
    var payload: String

    @Option(help: "What the payload is: direct or eid.")
    var kind: TokenKind = .direct

    @Option(help: "Sample rate in Hz: 48000 or 44100.")
    var rate: Int = 48_000

    @Flag(help: "Write 32-bit float samples instead of 16-bit PCM.")
    var float = false

    @Option(help: "Peak amplitude, 0 < A <= 1 of full scale.")
    var amplitude: Float = 0.5

    @Option(help: "The WAV file to write.")
    var out: String

    func validate() throws {
        guard rate == 48_000 || rate == 44_100 else {
            throw ValidationError("--rate \(rate): use 48000 or 44100")
        }
        guard amplitude > 0 && amplitude <= 1 else {
            throw ValidationError("--amplitude \(amplitude): use a value above 0 and at most 1")
        }
    }

    func run() throws {
        let token: Token
        do { token = try Token(kind: kind, hex: payload) } catch { throw CommandFailure("--payload: \(error)") }
        let encoder = try BurstEncoder(sampleRate: rate, amplitude: amplitude)
        encoder.start(token)
        var samples = [Float](repeating: 0, count: encoder.rate.burstSamples)
        samples.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
        let format = WAVFormat(encoding: float ? .float32 : .pcm16, sampleRate: rate)
        do {
            let writer = try WAVFileWriter(path: out, format: format)
            try samples.withUnsafeBufferPointer { buffer throws(SystemError) in try writer.write(buffer) }
            try writer.close()
        } catch {
            throw CommandFailure("\(error)")
        }
        let encoding = float ? "32-bit float" : "16-bit PCM"
        StandardStreams.line("wrote \(out): \(token), \(Formatting.fixed(encoder.rate.burstSeconds, decimals: 3)) s at \(rate) Hz, \(encoding)")
    }
}
