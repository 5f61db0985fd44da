import NearcastCore
import NearcastDrivers

/// `nearcast decode`: every token in a WAV file.
struct DecodeCommand: RunnableCommand {
    static let node = CommandNode.command(
        "decode",
        abstract: "Decode every token in a WAV file (16-bit PCM or 32-bit float, 44.1 or 48 kHz, first channel).",
        discussion: "Exits 0 when the file was read, even if it holds no token.",
        arguments: [
            .positional("file", help: "The WAV file to decode."),
            .option("band", help: "The bands to listen to: both (the default), high or low."),
            .flag("json", help: "One JSON object per token and line."),
        ]) { arguments throws(UsageError) in
            DecodeCommand(file: try arguments.required("file"), bands: try arguments.value("band", default: BandSelection.both).bands,
                          json: arguments.flag("json"))
        }

    let file: String
    let bands: [ModemBand]
    let json: Bool

    func run() throws {
        let reader: WAVFileReader
        do { reader = try WAVFileReader(path: file) } catch { throw CommandFailure("\(error)") }
        let rate = reader.layout.format.sampleRate
        let decoder: MultiBandDecoder
        do { decoder = try MultiBandDecoder(sampleRate: rate, bands: bands) } catch { throw CommandFailure("\(file): \(error)") }

        var found = 0
        // The bands' decoders report one after the other within a push: each chunk's bursts
        // are printed in time order.
        var heard: [DecodedBurst] = []
        let collect = { (burst: DecodedBurst) in heard.append(burst) }
        let report = {
            for burst in heard.sorted(by: { $0.startSample < $1.startSample }) {
                found += 1
                StandardStreams.line(json ? Self.json(burst) : Self.text(burst))
            }
            heard.removeAll(keepingCapacity: true)
        }
        try WAVChunks.forEach(reader) { samples in
            decoder.push(samples, collect)
            report()
        }
        decoder.finish(collect)
        report()
        if !json {
            let seconds = Double(reader.layout.frames) / Double(rate)
            StandardStreams.line("\(found) token\(found == 1 ? "" : "s") in \(Formatting.fixed(seconds, decimals: 2)) s of audio at \(rate) Hz")
        }
    }

    static func json(_ burst: DecodedBurst) -> String {
        "{\"payload\":\"\(burst.token.hex)\",\"kind\":\"\(burst.token.kind)\","
            + "\"offset_s\":\(Formatting.fixed(burst.offsetSeconds, decimals: 6)),"
            + "\"sync\":\(Formatting.fixed(Double(burst.syncScore), decimals: 3)),"
            + "\"snr_db\":\(Formatting.fixed(Double(burst.symbolSNR), decimals: 1)),"
            + "\"time_scale_ppm\":\(Formatting.fixed(Double(burst.timeScalePPM), decimals: 0)),"
            + "\"tonal_share\":\(Formatting.fixed(Double(burst.tonalShare), decimals: 3)),"
            + "\"band\":\"\(burst.band.name)\",\"format\":\(burst.format),\"copies\":\(burst.copies)}"
    }

    static func text(_ burst: DecodedBurst) -> String {
        "\(Formatting.pad(Formatting.fixed(burst.offsetSeconds, decimals: 3), 9)) s  \(burst.token.kind)  \(burst.token.hex)"
            + "  (sync \(Formatting.fixed(Double(burst.syncScore), decimals: 2)),"
            + " Es/N0 \(Formatting.fixed(Double(burst.symbolSNR), decimals: 1)) dB,"
            + " time scale \(Formatting.fixed(Double(burst.timeScalePPM), decimals: 0)) ppm,"
            + " tonal share \(Formatting.fixed(Double(burst.tonalShare), decimals: 2)), \(burst.band.name) band"
            + (burst.copies > 1 ? ", \(burst.copies) bursts combined)" : ")")
    }
}
