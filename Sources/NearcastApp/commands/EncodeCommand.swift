import NearcastCore
import NearcastDrivers

/// `nearcast encode`: one token burst as a WAV file.
struct EncodeCommand: RunnableCommand {
    static let node = CommandNode.command(
        "encode",
        abstract: "Write one token burst as a WAV file (mono, 16-bit PCM unless --float).",
        arguments: [
            .option("payload", value: "hex", help: "The payload in hex: 1-8 bytes for direct tokens, exactly 8 for eid (required unless --field-check)."),
            .flag("field-check", help: "Write the field check's sequence instead (what 'audio sweep' plays: the 12-21 kHz sweep, then a test burst in each band)."),
            .option("kind", help: "What the payload is: direct (the default) or eid."),
            .option("rate", help: "Sample rate in Hz: 48000 (the default) or 44100."),
            .option("band", help: "The band: high (18.5-20 kHz, the default) or low (15-16.5 kHz, for phones that do not hear the high one)."),
            .flag("float", help: "Write 32-bit float samples instead of 16-bit PCM."),
            .option("amplitude", help: "Peak amplitude, 0 < A <= 1 of full scale (default 0.5)."),
            .option("out", value: "file", required: true, help: "The WAV file to write."),
        ],
        make: EncodeCommand.init)

    let payload: String
    let fieldCheck: Bool
    let kind: TokenKind
    let rate: Int
    let band: ModemBand
    let float: Bool
    let amplitude: Float
    let out: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        fieldCheck = arguments.flag("field-check")
        if fieldCheck {
            payload = ""
            guard try arguments.value("payload", as: String.self) == nil else { throw UsageError("--field-check writes the calibration token: leave out --payload") }
        } else {
            payload = try arguments.required("payload")
        }
        kind = try arguments.value("kind", default: .direct)
        rate = try arguments.value("rate", default: 48_000)
        band = try arguments.value("band", default: .high)
        float = arguments.flag("float")
        amplitude = try arguments.value("amplitude", default: 0.5)
        out = try arguments.required("out")
        guard rate == 48_000 || rate == 44_100 else {
            throw UsageError("--rate \(rate): use 48000 or 44100")
        }
        guard amplitude > 0 && amplitude <= 1 else {
            throw UsageError("--amplitude \(amplitude): use a value above 0 and at most 1")
        }
    }

    func run() throws {
        if fieldCheck { return try runFieldCheck() }
        let token: Token
        do { token = try Token(kind: kind, hex: payload) } catch { throw CommandFailure("--payload: \(error)") }
        let encoder = try BurstEncoder(sampleRate: rate, band: band, amplitude: amplitude)
        encoder.start(token)
        var samples = [Float](repeating: 0, count: encoder.rate.burstSamples)
        samples.withUnsafeMutableBufferPointer { _ = encoder.render(into: $0) }
        try write(samples)
        StandardStreams.line("wrote \(out): \(token), \(Formatting.fixed(encoder.rate.burstSeconds, decimals: 3)) s at \(rate) Hz in the \(band.name) band (\(band.firstToneHz)-\(band.lastToneHz) Hz), \(encoding)")
    }

    private var encoding: String { float ? "32-bit float" : "16-bit PCM" }

    private func write(_ samples: [Float]) throws {
        let format = WAVFormat(encoding: float ? .float32 : .pcm16, sampleRate: rate)
        do {
            let writer = try WAVFileWriter(path: out, format: format)
            try samples.withBuffer { buffer throws(SystemError) in try writer.write(buffer) }
            try writer.close()
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// `--field-check`: the sequence `audio sweep` plays, at `--amplitude`.
    private func runFieldCheck() throws {
        let encoder = try MultiBandEncoder(sampleRate: rate, amplitude: amplitude)
        let player = FieldCheckPlayer(sampleRate: rate)
        var samples = [Float](repeating: 0, count: FieldCheckSignal.totalSamples(rate: encoder.rate))
        player.start()
        samples.withUnsafeMutableBufferPointer { _ = player.render(into: $0, encoder: encoder) }
        try write(samples)
        StandardStreams.line("wrote \(out): the field check's sequence, \(Formatting.fixed(Double(samples.count) / Double(rate), decimals: 2)) s at \(rate) Hz "
                             + "(\(FieldCheckSignal.toneCount) tones \(FieldCheckSignal.toneHz(0))-\(FieldCheckSignal.toneHz(FieldCheckSignal.toneCount - 1)) Hz, "
                             + "then the test token \(FieldCheckSignal.testToken.hex) in the high and the low band), \(encoding)")
    }
}
