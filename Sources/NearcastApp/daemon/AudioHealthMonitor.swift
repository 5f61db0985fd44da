import NearcastCore

/// Watches the sound devices for the daemon's loop: sums their states into what the audio LED
/// and `status` show, and logs a line whenever that changes (a device lost, back, underruns).
final class AudioHealthMonitor {
    private var xruns = XrunWatch()
    private var shownProblem: String?
    private var shownUnderruns = false
    /// What the last update saw; the text is only rebuilt when it changes.
    private var last: (played: AudioDeviceStatus, heard: AudioDeviceStatus?, lately: Bool)?

    /// Updates `context` from the devices' states at `milliseconds` of stream time.
    func update(output: AudioOutput, input: AudioInput?, atMilliseconds milliseconds: Int64,
                context: ConsoleContext, log: (String) -> Void) {
        let played = output.status
        let heard = input?.status
        let problem = played.problem ?? heard?.problem
        let lately = xruns.update(count: played.xruns + (heard?.xruns ?? 0), atMilliseconds: milliseconds)
        if let last, last.played == played, last.heard == heard, last.lately == lately { return }
        last = (played, heard, lately)
        context.audioHealth = max(played.health, heard?.health ?? .ok, lately ? .underruns : .ok)

        let text = problem.map { "\($0)" }
        if text != shownProblem {
            if let text {
                log("error: \(text); retrying (every 1 s, backing off to 30 s); BLE goes on meanwhile")
            } else if let shownProblem {
                log("audio: device back after: \(shownProblem); playing again")
            }
            shownProblem = text
        }
        context.audioProblem = text ?? (lately ? "\(played.xruns) underruns" + (heard.map { ", \($0.xruns) overruns" } ?? "") : nil)
        if lately && !shownUnderruns {
            log("warning: audio: underrun recovered (\(played.xruns) played" + (heard.map { ", \($0.xruns) captured" } ?? "")
                + " so far); the audio LED blinks fast for 10 s")
        }
        shownUnderruns = lately
    }
}
