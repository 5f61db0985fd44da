import NearcastBench
import NearcastCore

/// The rows `nearcast bench modem --repeats K` prints: each condition's groups of K bursts,
/// beside what the same bursts give alone and what combining K copies gains in theory.
enum RepeatsRows {
    static let header = "condition      K  trials  decoded  success  alone   wrong  first at   ready  combined (tries)  10log10K  decode CPU  channel"

    static func row(_ r: RepeatsBenchmark.Result, summary: String) -> String {
        Formatting.padRight(r.condition, 13) + " "
            + Formatting.pad(String(r.repeats), 2) + "  "
            + Formatting.pad(String(r.trials), 6) + "  "
            + Formatting.pad(String(r.decoded), 7) + "  "
            + Formatting.pad(Formatting.fixed(r.successPercent, decimals: 1) + "%", 7) + "  "
            + Formatting.pad(Formatting.fixed(r.alonePercent, decimals: 1) + "%", 6) + "  "
            + Formatting.pad(String(r.wrong), 5) + "  "
            + Formatting.pad(Formatting.fixed(r.meanFirstTokenBurst, decimals: 2), 8) + "  "
            + Formatting.pad(Formatting.fixed(1000 * r.meanFirstTokenDelay, decimals: 0) + " ms", 6) + "  "
            + Formatting.pad("\(r.combinedDecodes) (\(r.combinedTries))", 16) + "  "
            + Formatting.pad(Formatting.fixed(r.theoreticalGainDB, decimals: 1) + " dB", 8) + "  "
            + Formatting.pad(Formatting.fixed(r.cpuMillisecondsPerSecond, decimals: 2) + " ms/s", 10) + "  "
            + summary
    }

    static func json(_ r: RepeatsBenchmark.Result) -> String {
        "{\"condition\":\(Formatting.jsonString(r.condition)),\"repeats\":\(r.repeats),\"trials\":\(r.trials),"
            + "\"decoded\":\(r.decoded),\"decoded_alone\":\(r.decodedAlone),\"wrong\":\(r.wrong),"
            + "\"first_token_burst\":\(Formatting.fixed(r.meanFirstTokenBurst, decimals: 3)),"
            + "\"first_token_delay_s\":\(Formatting.fixed(r.meanFirstTokenDelay, decimals: 4)),"
            + "\"combined_decodes\":\(r.combinedDecodes),\"combined_tries\":\(r.combinedTries),\"predicted_candidates\":\(r.predictedCandidates),\"frames_tried\":\(r.framesTried),"
            + "\"gain_db\":\(Formatting.fixed(r.theoreticalGainDB, decimals: 2)),"
            + "\"cpu_ms_per_s\":\(Formatting.fixed(r.cpuMillisecondsPerSecond, decimals: 3))}"
    }
}
