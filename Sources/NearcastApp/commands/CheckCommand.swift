import NearcastCore
import NearcastDrivers

/// `nearcast check`: the field check measured in a recording, as the hub's `/check` page
/// measures it on a phone (the same analyser and decoder): for a technician with a recording
/// made at a seat, and for the tests.
struct CheckCommand: RunnableCommand {
    static let node = CommandNode.command(
        "check",
        abstract: "Measure the field check's sweep (audio sweep on the console) in a WAV recording.",
        discussion: "For each sweep found: the level and the margin over the noise of each band, whether each band's "
            + "calibration burst decoded, and which bands a phone there can use. Exits 0 when the file was read, "
            + "even if it holds no sweep.",
        arguments: [
            .positional("file", help: "The WAV file (16-bit PCM or 32-bit float, 44.1 or 48 kHz, first channel)."),
            .flag("json", help: "One JSON object per sweep and line, with every tone."),
        ]) { arguments throws(UsageError) in
            CheckCommand(file: try arguments.required("file"), json: arguments.flag("json"))
        }

    let file: String
    let json: Bool

    /// One sweep and what followed it.
    struct Found {
        var reading: FieldCheckReading
        var highDecoded = false
        var lowDecoded = false
        var verdict: FieldCheckVerdict { FieldCheckVerdict.judge(reading, highDecoded: highDecoded, lowDecoded: lowDecoded) }
    }

    func run() throws {
        let reader: WAVFileReader
        do { reader = try WAVFileReader(path: file) } catch { throw CommandFailure("\(error)") }
        let rate = reader.layout.format.sampleRate
        let analyzer: FieldCheckAnalyzer, decoder: MultiBandDecoder, modemRate: ModemRate
        do {
            analyzer = try FieldCheckAnalyzer(sampleRate: rate)
            decoder = try MultiBandDecoder(sampleRate: rate, bands: [.high, .low])
            modemRate = try ModemRate(sampleRate: rate)
        } catch {
            throw CommandFailure("\(file): \(error)")
        }
        var readings: [FieldCheckReading] = []
        var bursts: [DecodedBurst] = []
        try WAVChunks.forEach(reader) { samples in
            analyzer.push(samples) { readings.append($0) }
            decoder.push(samples) { bursts.append($0) }
        }
        analyzer.finish { readings.append($0) }
        decoder.finish { bursts.append($0) }
        // A sweep's calibration bursts end within its sequence's length (and a room's echo) of it.
        let window = FieldCheckSignal.totalSamples(rate: modemRate) + rate / 2
        let found = readings.map { reading in
            var sweep = Found(reading: reading)
            for burst in bursts where burst.token == FieldCheckSignal.testToken
                && burst.startSample >= reading.startSample && burst.startSample < reading.startSample + window {
                if burst.band == .high { sweep.highDecoded = true } else { sweep.lowDecoded = true }
            }
            return sweep
        }
        for sweep in found { StandardStreams.line(json ? Self.json(sweep, rate: rate) : Self.text(sweep, rate: rate)) }
        if !json {
            let seconds = Double(reader.layout.frames) / Double(rate)
            StandardStreams.line("\(found.count) sweep\(found.count == 1 ? "" : "s") in \(Formatting.fixed(seconds, decimals: 2)) s of audio at \(rate) Hz"
                                 + (found.isEmpty ? " (play one with 'audio sweep' on the box's console)" : ""))
        }
    }

    static func text(_ sweep: Found, rate: Int) -> String {
        var lines = ["sweep at \(Formatting.fixed(Double(sweep.reading.startSample) / Double(rate), decimals: 2)) s: use \(sweep.verdict.name) (\(sweep.verdict.advice))"]
        for band in [ModemBand.high, .low] {
            let decoded = band == .high ? sweep.highDecoded : sweep.lowDecoded
            lines.append("  \(band.name) band \(band.firstToneHz)-\(band.lastToneHz) Hz: level \(Formatting.fixed(Double(sweep.reading.level(of: band)), decimals: 1)) dB, "
                         + "\(Formatting.fixed(Double(sweep.reading.snr(of: band)), decimals: 1)) dB above the noise; "
                         + "calibration burst \(decoded ? "decoded" : "not decoded")")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ sweep: Found, rate: Int) -> String {
        let reading = sweep.reading
        let tones = (0..<FieldCheckSignal.toneCount).map { tone in
            "{\"hz\":\(FieldCheckSignal.toneHz(tone)),\"level_db\":\(Formatting.fixed(Double(reading.levelDB[tone]), decimals: 1)),"
                + "\"noise_db\":\(Formatting.fixed(Double(reading.noiseDB[tone]), decimals: 1)),"
                + "\"snr_db\":\(Formatting.fixed(Double(reading.snrDB[tone]), decimals: 1))}"
        }
        let bands = [ModemBand.high, .low].map { band in
            "{\"band\":\"\(band.name)\",\"level_db\":\(Formatting.fixed(Double(reading.level(of: band)), decimals: 1)),"
                + "\"snr_db\":\(Formatting.fixed(Double(reading.snr(of: band)), decimals: 1)),"
                + "\"decoded\":\(band == .high ? sweep.highDecoded : sweep.lowDecoded)}"
        }
        return "{\"offset_s\":\(Formatting.fixed(Double(reading.startSample) / Double(rate), decimals: 3)),\"verdict\":\"\(sweep.verdict.name)\","
            + "\"bands\":[\(bands.joined(separator: ","))],\"tones\":[\(tones.joined(separator: ","))]}"
    }
}
