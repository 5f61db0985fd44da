import NearcastBench
import NearcastCore
import NearcastDrivers

/// `nearcast bench modem --repeats K --write-trials DIR`: every trial's received stream as the
/// decoder was fed it (`trial-NNNNN.wav`, 32-bit float, so nothing is rounded) and one JSON line
/// per trial in `trials.jsonl`: where each burst is, which token it carries, and what the native
/// decoder reported and when. tools/bench/bench-web-repeats decodes the same files with the
/// listener page's WebAssembly decoder in Chromium and compares.
final class BenchTrialWriter {
    let directory: String
    let sampleRate: Int
    private let manifest: OpenFile
    private let condition: String

    /// Makes `directory` (if need be) and opens the manifest, `trials-<condition>.jsonl`.
    init(directory: String, condition: String, sampleRate: Int) throws(CommandFailure) {
        self.directory = directory
        self.sampleRate = sampleRate
        self.condition = condition
        do {
            try FileSystem.makeDirectories(directory)
            manifest = try OpenFile.forWriting("\(directory)/trials-\(condition).jsonl")
        } catch {
            throw CommandFailure("--write-trials: \(error)")
        }
    }

    /// Writes one trial's audio and its manifest line.
    func write(_ trial: RepeatsBenchmark.Trial) throws(CommandFailure) {
        let number = String(trial.index)
        let name = "\(condition)-\(String(repeating: "0", count: max(0, 5 - number.count)))\(number).wav"
        do {
            let writer = try WAVFileWriter(path: "\(directory)/\(name)", format: WAVFormat(encoding: .float32, sampleRate: sampleRate))
            try trial.received.withBuffer { buffer throws(SystemError) in try writer.write(buffer) }
            try writer.close()
            try manifest.write(Array((line(trial, file: name) + "\n").utf8))
        } catch {
            throw CommandFailure("--write-trials: \(error)")
        }
    }

    func close() throws(CommandFailure) {
        do { try manifest.close() } catch { throw CommandFailure("--write-trials: \(error)") }
    }

    private func line(_ trial: RepeatsBenchmark.Trial, file: String) -> String {
        let tokens = trial.tokens.map { "{\"kind\":\"\($0.kind)\",\"payload\":\"\($0.hex)\"}" }
        let bursts = trial.bursts.map { "{\"start\":\(Formatting.fixed($0.start, decimals: 2)),\"token\":\($0.token)}" }
        let found = trial.found.map { heard in
            "{\"kind\":\"\(heard.burst.token.kind)\",\"payload\":\"\(heard.burst.token.hex)\",\"start\":\(heard.burst.startSample),"
                + "\"copies\":\(heard.burst.copies),\"reported_at\":\(heard.reportedAt)}"
        }
        return "{\"file\":\(Formatting.jsonString(file)),\"index\":\(trial.index),\"seed\":\(trial.seed),\"sample_rate\":\(sampleRate),"
            + "\"tolerance\":\(Formatting.fixed(trial.tolerance, decimals: 2)),\"burst_samples\":\(Formatting.fixed(trial.burstSamples, decimals: 2)),"
            + "\"tokens\":[\(tokens.joined(separator: ","))],\"bursts\":[\(bursts.joined(separator: ","))],"
            + "\"native\":[\(found.joined(separator: ","))]}"
    }
}
