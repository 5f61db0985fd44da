import NearcastBench
import NearcastCore
import NearcastDrivers

/// `nearcast bench`: measurements of the modem through simulated channels.
enum BenchCommand {
    static let node = CommandNode.group(
        "bench", abstract: "Measure the modem through simulated channels (build with -c release for CPU figures).",
        subcommands: [BenchModemCommand.node, BenchChannelCommand.node])
}

/// `nearcast bench modem`: success rate, wrong payloads, airtime and decode CPU per condition,
/// then false tokens per hour of background sound.
struct BenchModemCommand: RunnableCommand {
    static let node = CommandNode.command(
        "modem",
        abstract: "Decode bursts through each channel condition and report the modem's figures.",
        discussion: """
            Each trial is a random 8-byte token in one burst, the condition's channel with its own \
            seed, and a fresh decoder fed 1024-sample periods. 500 trials support a 99% claim (at \
            most 5 failures). Failed trial seeds are printed with --show-failures; replay one with \
            `nearcast bench channel --seed`.
            """,
        arguments: [
            .flag("list", help: "List the conditions and exit."),
            .option("trials", help: "Trials per condition (default 500)."),
            .option("conditions", value: "names", help: "Comma-separated condition names (default: all)."),
            .option("seed", help: "Base seed of the trials (default 1)."),
            .option("cn0", value: "dB-Hz", help: "Override the C/N0 (dB-Hz) of every selected condition, for sweeps."),
            .option("directivity", value: "Q", help: "Override the speaker's directivity factor Q of the room conditions (2: omnidirectional on a wall)."),
            .option("noise-hours", value: "hours", help: "Hours of each background sound (white, pink, speech, music) for the false-token count; 0 skips it (default 1)."),
            .option("sync-threshold", value: "factor", help: "The decoder's sync threshold, in units of the mean score of noise (default 7)."),
            .flag("no-tone-scale", help: "Keep the chirps' time-scale estimate (no search on the data tones), for comparison."),
            .option("window-delay", value: "ms", help: "How long after the direct sound the symbol windows start in a reverberant room (default 0)."),
            .option("gate", value: "share", help: "The tonal share a candidate needs to reach the CRC (default 0.58)."),
            .option("rt60", value: "seconds", help: "Override the RT60 of the image-method room conditions (0.1 to 2)."),
            .option("distance", value: "metres", help: "Override the source-listener distance of the image-method room conditions (0.5 to 8)."),
            .option("noise-rate", value: "hz", help: "Sample rate of the false-token run: 48000 (the default) or 44100."),
            .option("band", value: "high|low", help: "The band every trial and the false-token run use: high (the default) or low."),
            .option("symbols", value: "N", help: "Data symbols per burst, 6 to 11 (default 11, format 2's 0.72 s; 9 is 0.60 s, 7 is 0.48 s): how the bars fall with airtime. Not a format a box sends."),
            .option("repeats", value: "K", help: "Each trial is K bursts of one token 1.44 s apart (the box's spacing) through the channel as one stream, 1 to 8: what combining the bursts gains, beside 10*log10(K)."),
            .option("room", value: "static|held", help: "With --repeats in an image-method room: one response for the whole group (a phone lying still, the default) or a new one per burst with the listener moved 1-5 cm (a phone in a hand)."),
            .flag("rotate", help: "With --repeats: an EID that changes within the group (token A, then B); success is both, anything else is wrong."),
            .flag("no-combining", help: "Decode every burst alone (no combining of repeats), for comparison."),
            .flag("no-repeat-search", help: "Do not look for a kept burst's repeat where it is due when the sync found none there, for comparison."),
            .option("write-trials", value: "dir", help: "With --repeats: write each trial's received audio (32-bit float WAV) and a JSON line of its bursts and the decoder's reports to DIR, for tools/bench/bench-web-repeats."),
            .flag("json", help: "One JSON object per condition and line instead of the table."),
            .flag("show-failures", help: "Print the seeds of failed trials."),
        ],
        make: BenchModemCommand.init)

    let list: Bool
    let trials: Int
    let conditions: String?
    let seed: UInt64
    let cn0: Double?
    let directivity: Double?
    let noiseHours: Double
    let syncThreshold: Float?
    let noiseRate: Int
    let band: ModemBand
    let length: BurstLength
    let noToneScale: Bool
    let windowDelay: Double?
    let gate: Float?
    let roomOverride: RoomOverride
    let repeats: Int?
    let rotate: Bool
    let held: Bool
    let noCombining: Bool
    let noRepeatSearch: Bool
    let writeTrials: String?
    let json: Bool
    let showFailures: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        list = arguments.flag("list")
        trials = try arguments.value("trials", default: 500)
        conditions = try arguments.value("conditions")
        seed = try arguments.value("seed", default: 1)
        cn0 = try arguments.value("cn0")
        directivity = try arguments.value("directivity")
        noiseHours = try arguments.value("noise-hours", default: 1.0)
        syncThreshold = try arguments.value("sync-threshold")
        noiseRate = try arguments.value("noise-rate", default: 48_000)
        band = try arguments.value("band", default: .high)
        let symbols = try arguments.value("symbols", default: ModemProfile.symbolCount)
        guard let length = BurstLength(symbols: symbols) else {
            throw UsageError("--symbols \(symbols): use \(BurstLength.shortestSymbols) to \(ModemProfile.symbolCount)")
        }
        self.length = length
        noToneScale = arguments.flag("no-tone-scale")
        windowDelay = try arguments.value("window-delay")
        gate = try arguments.value("gate")
        roomOverride = try RoomOverride(arguments)
        repeats = try arguments.value("repeats")
        rotate = arguments.flag("rotate")
        let room: String = try arguments.value("room", default: "static")
        guard room == "static" || room == "held" else { throw UsageError("--room \(room): use static or held") }
        held = room == "held"
        noCombining = arguments.flag("no-combining")
        noRepeatSearch = arguments.flag("no-repeat-search")
        writeTrials = try arguments.value("write-trials")
        if writeTrials != nil && repeats == nil { throw UsageError("--write-trials: goes with --repeats") }
        json = arguments.flag("json")
        showFailures = arguments.flag("show-failures")
        if let repeats, !(1...8).contains(repeats) { throw UsageError("--repeats \(repeats): use 1 to 8 bursts") }
        if held {
            guard repeats != nil else { throw UsageError("--room held: goes with --repeats") }
            for condition in try selectedConditions() where condition.shoeBox == nil {
                throw UsageError("--room held: condition \"\(condition.name)\" has no image-method room")
            }
        }
        if rotate && (repeats ?? 0) < 2 { throw UsageError("--rotate: needs --repeats 2 or more (a group the EID changes in)") }

        guard trials > 0 else { throw UsageError("--trials \(trials): use at least 1") }
        guard noiseHours >= 0 && noiseHours.isFinite else { throw UsageError("--noise-hours: use 0 or more") }
        _ = try selectedConditions()
        if let syncThreshold, !(syncThreshold > 0 && syncThreshold.isFinite) {
            throw UsageError("--sync-threshold: use a value above 0")
        }
        if let gate, !(gate >= 0 && gate <= 1) { throw UsageError("--gate: use a share from 0 to 1") }
        if let windowDelay, !(windowDelay >= 0 && windowDelay <= 20) { throw UsageError("--window-delay: use 0 to 20 ms") }
        for condition in try selectedConditions() { try roomOverride.check(condition) }
        if let cn0, !cn0.isFinite { throw UsageError("--cn0: use a number of dB-Hz") }
        if let directivity, !(directivity > 0 && directivity.isFinite) {
            throw UsageError("--directivity: use a value above 0")
        }
        guard noiseRate == 48_000 || noiseRate == 44_100 else { throw UsageError("--noise-rate \(noiseRate): use 48000 or 44100") }
    }

    var decoderConfiguration: BurstDecoder.Configuration {
        var configuration = BurstDecoder.Configuration()
        if let syncThreshold { configuration.syncThresholdOverNoise = syncThreshold }
        if noToneScale { configuration.refinesScaleOnTones = false }
        if let windowDelay { configuration.windowDelayMilliseconds = windowDelay }
        if let gate { configuration.minimumTonalShare = gate }
        if noCombining { configuration.combinesBursts = false }
        if noRepeatSearch { configuration.searchesRepeats = false }
        configuration.length = length
        return configuration
    }

    func selectedConditions() throws(UsageError) -> [ChannelCondition] {
        guard let conditions else { return ChannelCondition.standard }
        var selected: [ChannelCondition] = []
        for name in conditions.split(separator: ",") {
            guard let condition = ChannelCondition.named(String(name)) else {
                let known = ChannelCondition.standard.map(\.name).joined(separator: ", ")
                throw UsageError("--conditions: no condition \"\(name)\" (known: \(known))")
            }
            selected.append(condition)
        }
        return selected
    }

    func run() throws {
        if list {
            for condition in ChannelCondition.standard {
                StandardStreams.line("\(condition.name)\t\(condition.summary)")
            }
            return
        }
        let selected = try selectedConditions()
        if !json {
            StandardStreams.line("Modem benchmark: \(trials) trials per condition, seed \(seed), periods of \(ModemBenchmark.period) samples, "
                + "\(band.name) band (\(band.firstToneHz)-\(band.lastToneHz) Hz)"
                + (length == .standard ? "" : ", \(length.symbolCount) data symbols (a bench-only length: \(length.codedBits) of the code's 180 bits sent)"))
            StandardStreams.line(repeats == nil ? Self.header : RepeatsRows.header)
        }
        for var condition in selected {
            if let cn0 { condition.cn0 = cn0 }
            condition.band = band
            if let directivity, condition.room != nil { condition.room?.directivity = directivity }
            roomOverride.apply(to: &condition)
            StandardStreams.error("bench: \(condition.name): \(trials) trials...")
            if let repeats {
                let writer = try writeTrials.map { directory throws(CommandFailure) in
                    try BenchTrialWriter(directory: directory, condition: condition.name, sampleRate: condition.sampleRate)
                }
                let result = try RepeatsBenchmark(condition, repeats: repeats, rotate: rotate, held: held)
                    .run(trials: trials, seed: seed, decoder: decoderConfiguration, cpuSeconds: ThreadCPUClock.seconds,
                         observe: writer.map { writer in { trial in try writer.write(trial) } })
                try writer?.close()
                StandardStreams.line(json ? RepeatsRows.json(result) : RepeatsRows.row(result, summary: summary(of: condition)))
                for (seed, combined) in result.wrongSeeds {
                    StandardStreams.line("  wrong payload in trial seed \(seed) (\(combined ? "combined bursts" : "one burst alone"))")
                }
                if showFailures && !result.failedSeeds.isEmpty {
                    StandardStreams.line("  failed seeds: " + result.failedSeeds.map(String.init).joined(separator: " "))
                }
                continue
            }
            let result = try ModemBenchmark(condition).run(trials: trials, seed: seed, decoder: decoderConfiguration,
                                                          cpuSeconds: ThreadCPUClock.seconds)
            var legend = summary(of: condition)
            if let drr = result.meanDirectToReverberantDB {
                legend += " [mean DRR \(Formatting.fixed(drr, decimals: 2)) dB]"
            }
            StandardStreams.line(json ? Self.json(result) : Self.row(result, summary: legend))
            if showFailures && !result.failedSeeds.isEmpty {
                StandardStreams.line("  failed seeds: " + result.failedSeeds.map(String.init).joined(separator: " "))
            }
        }
        try runNoise()
    }

    /// The condition's legend with what the flags changed in it.
    private func summary(of condition: ChannelCondition) -> String {
        var summary = condition.summary
        if let shoebox = condition.shoeBox, roomOverride.isSet {
            summary += " [RT60 \(Formatting.fixed(shoebox.rt60, decimals: 2)) s, \(Formatting.fixed(shoebox.distance, decimals: 1)) m]"
        }
        if cn0 != nil || directivity != nil {
            summary += " [C/N0 \(Formatting.fixed(condition.cn0, decimals: 1)) dB-Hz"
            if let room = condition.room {
                summary += ", Q \(Formatting.fixed(room.directivity, decimals: 1)), DRR \(Formatting.fixed(room.directToReverberantDB, decimals: 1)) dB"
            }
            summary += "]"
        }
        return summary
    }

    /// False tokens per hour of each background sound.
    private func runNoise() throws {
        guard noiseHours > 0 else { return }
        if !json {
            StandardStreams.line("")
            StandardStreams.line("False tokens: \(Formatting.fixed(noiseHours, decimals: 2)) h of each sound at \(noiseRate) Hz, no burst in it, "
                + "\(band.name)-band decoder")
            StandardStreams.line("sound    hours  candidates/h  frames tried/h  false tokens  decode CPU")
        }
        for (index, sound) in BackgroundSound.Kind.allCases.enumerated() {
            StandardStreams.error("bench: \(sound.rawValue) noise: \(Formatting.fixed(noiseHours, decimals: 2)) h...")
            let result = try FalseTokenBenchmark.run(sound: sound, seconds: noiseHours * 3600, sampleRate: noiseRate, band: band,
                                                     seed: seed &+ UInt64(index), decoder: decoderConfiguration,
                                                     cpuSeconds: ThreadCPUClock.seconds)
            if json {
                StandardStreams.line("{\"sound\":\"\(sound.rawValue)\",\"seconds\":\(Formatting.fixed(result.seconds, decimals: 1)),"
                    + "\"candidates\":\(result.candidates),\"frames_tried\":\(result.framesTried),"
                    + "\"false_tokens\":\(result.falseTokens)}")
            } else {
                let cpu = 1000 * result.decodeSeconds / result.seconds
                StandardStreams.line(Formatting.padRight(sound.rawValue, 8) + " "
                    + Formatting.pad(Formatting.fixed(result.seconds / 3600, decimals: 2), 5) + "  "
                    + Formatting.pad(Formatting.fixed(result.candidatesPerHour, decimals: 0), 12) + "  "
                    + Formatting.pad(Formatting.fixed(result.framesPerHour, decimals: 1), 14) + "  "
                    + Formatting.pad(String(result.falseTokens), 12) + "  "
                    + Formatting.pad(Formatting.fixed(cpu, decimals: 2), 6) + " ms/s")
            }
        }
    }

    static let header = "condition      trials  decoded  success  wrong  airtime  decode CPU  channel"

    static func row(_ r: ModemBenchmark.Result, summary: String) -> String {
        Formatting.padRight(r.condition, 13) + " "
            + Formatting.pad(String(r.trials), 6) + "  "
            + Formatting.pad(String(r.decoded), 7) + "  "
            + Formatting.pad(Formatting.fixed(r.successPercent, decimals: 1) + "%", 7) + "  "
            + Formatting.pad(String(r.wrong), 5) + "  "
            + Formatting.pad(Formatting.fixed(r.airtime, decimals: 3) + " s", 7) + "  "
            + Formatting.pad(Formatting.fixed(r.cpuMillisecondsPerSecond, decimals: 2) + " ms/s", 10) + "  "
            + summary
    }

    static func json(_ r: ModemBenchmark.Result) -> String {
        "{\"condition\":\(Formatting.jsonString(r.condition)),\"trials\":\(r.trials),\"decoded\":\(r.decoded),"
            + "\"wrong\":\(r.wrong),\"airtime\":\(Formatting.fixed(r.airtime, decimals: 4)),"
            + "\"cpu_ms_per_s\":\(Formatting.fixed(r.cpuMillisecondsPerSecond, decimals: 3)),\"band\":\"\(r.band.name)\""
            + ",\"demodulated\":\(r.demodulated),\"frames_tried\":\(r.framesTried)"
            + (r.meanDirectToReverberantDB.map { ",\"drr_db\":\(Formatting.fixed($0, decimals: 2))" } ?? "") + "}"
    }
}

/// `nearcast bench channel`: one condition applied to a WAV file, for peers' modems and for
/// replaying a failed trial.
struct BenchChannelCommand: RunnableCommand {
    static let node = CommandNode.command(
        "channel",
        abstract: "Apply one channel condition to a mono WAV file (0.5 s of silence is added each side).",
        discussion: "Noise is scaled to the mean power of the input between its first and last non-zero sample. The output is 32-bit float at the input's rate.",
        arguments: [
            .option("condition", value: "name", required: true, help: "Condition name (see `nearcast bench modem --list`)."),
            .option("seed", help: "Seed of the channel's randomness (default 1)."),
            .option("rt60", value: "seconds", help: "Override the RT60 of an image-method room condition (0.1 to 2)."),
            .option("distance", value: "metres", help: "Override the source-listener distance of an image-method room condition (0.5 to 8)."),
            .option("phone-cutoff", value: "Hz", help: "Add a phone's steep low-pass at this frequency (8000 to 22000; what a browser resampling through a lower rate does)."),
            .positional("input", help: "Input WAV file."),
            .positional("output", help: "Output WAV file."),
        ]) { arguments throws(UsageError) in
            BenchChannelCommand(condition: try arguments.required("condition"), seed: try arguments.value("seed", default: 1),
                                roomOverride: try RoomOverride(arguments), phoneCutoffHz: try phoneCutoff(arguments),
                                input: try arguments.required("input"), output: try arguments.required("output"))
        }

    private static func phoneCutoff(_ arguments: ParsedArguments) throws(UsageError) -> Double? {
        guard let hz = try arguments.value("phone-cutoff", as: Double.self) else { return nil }
        guard (8_000...22_000).contains(hz) else { throw UsageError("--phone-cutoff \(hz): use 8000 to 22000 Hz") }
        return hz
    }

    let condition: String
    let seed: UInt64
    let roomOverride: RoomOverride
    let phoneCutoffHz: Double?
    let input: String
    let output: String

    func run() throws {
        guard var chosen = ChannelCondition.named(condition) else {
            let known = ChannelCondition.standard.map(\.name).joined(separator: ", ")
            throw UsageError("--condition: no condition \"\(condition)\" (known: \(known))")
        }
        try roomOverride.check(chosen)
        roomOverride.apply(to: &chosen)
        if let phoneCutoffHz {
            chosen.phoneCutoffHz = phoneCutoffHz
            chosen.name += ", phone low-pass at \(Formatting.fixed(phoneCutoffHz, decimals: 0)) Hz"
        }
        let samples: [Float]
        let rate: Int
        do {
            let reader = try WAVFileReader(path: input)
            rate = reader.layout.format.sampleRate
            var all = [Float](repeating: 0, count: reader.layout.frames)
            var filled = 0
            while filled < all.count {
                let count = try all.withMutableBuffer { buffer throws(FileFormatError) in
                    try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
                }
                if count == 0 { break }
                filled += count
            }
            samples = Array(all[0..<filled])
        } catch {
            throw CommandFailure("\(error)")
        }
        guard samples.contains(where: { $0 != 0 }) else { throw CommandFailure("\(input): the file is silent") }
        // The condition's impairments do not depend on the rate; run them at the file's.
        chosen.sampleRate = rate
        let (received, draw) = ChannelSimulator(chosen).apply(samples, seed: seed)
        do {
            let writer = try WAVFileWriter(path: output, format: WAVFormat(encoding: .float32, sampleRate: rate))
            try received.withBuffer { buffer throws(SystemError) in try writer.write(buffer) }
            try writer.close()
        } catch {
            throw CommandFailure("\(error)")
        }
        StandardStreams.error("wrote \(output): \(chosen.name), seed \(seed), time scale \(Formatting.fixed(draw.timeScalePPM, decimals: 0)) ppm, input starts at sample \(Formatting.fixed(draw.inputStart, decimals: 1))")
    }
}

/// `--rt60` and `--distance`: one image-method room condition moved to another point of the
/// RT60 × distance plane (the sweep behind docs/modem.md's picture).
struct RoomOverride {
    var rt60: Double?
    var distance: Double?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        rt60 = try arguments.value("rt60")
        distance = try arguments.value("distance")
        if let rt60, !(rt60 >= 0.1 && rt60 <= 2) { throw UsageError("--rt60 \(rt60): use 0.1 to 2 seconds") }
        if let distance, !(distance >= 0.5 && distance <= ShoeBoxRoom.maximumDistance) {
            // Farther apart than the rooms can hold, the room draw would never find positions.
            throw UsageError("--distance \(distance): use 0.5 to 8 metres (the rooms' size)")
        }
    }

    var isSet: Bool { rt60 != nil || distance != nil }

    /// Throws when an override is given for a condition without an image-method room.
    func check(_ condition: ChannelCondition) throws(UsageError) {
        guard isSet, condition.shoeBox == nil else { return }
        let rooms = ChannelCondition.standard.filter { $0.shoeBox != nil }.map(\.name).joined(separator: ", ")
        throw UsageError("--rt60/--distance: condition \"\(condition.name)\" has no image-method room (those that have: \(rooms))")
    }

    func apply(to condition: inout ChannelCondition) {
        if let rt60 { condition.shoeBox?.rt60 = rt60 }
        if let distance { condition.shoeBox?.distance = distance }
    }
}
