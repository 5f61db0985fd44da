import NearcastCore
import NearcastDrivers
import NearcastNearby

/// Watches the devices once per loop period and reports their state to the manager
/// (``MessageManager/report(_:present:)``), which keeps the one set of current problems that
/// the LEDs, `status`, systemd's status line and the Nearby error handlers read. Also keeps the
/// drivers' own words for `status`, and logs a line when the sound devices change (the radio
/// logs its own losses and recoveries). Nothing is reported twice: the manager ignores what it
/// already knows, so a steady period allocates nothing.
final class DeviceHealthReporter {
    private var xruns = XrunWatch()
    private var shownProblem: String?
    private var shownUnderruns = false
    /// What the last update saw; the text is only rebuilt when it changes.
    private var last: (played: AudioDeviceStatus, heard: AudioDeviceStatus?, lately: Bool)?

    /// Reports the state of `devices` (and the microphone while it is open) at `milliseconds` of
    /// stream time to `manager`, and the drivers' words to `problems`.
    func update(_ devices: Devices, microphone: AudioInput?, atMilliseconds milliseconds: Int64,
                manager: MessageManager, problems: DriverProblems, log: (String) -> Void) {
        let radio = devices.radio
        manager.report(.bluetoothPermission, present: radio.health == .permissionDenied)
        manager.report(.bluetoothPower, present: radio.health == .poweredOff)
        manager.report(.bluetoothNoAdapter, present: radio.health == .noAdapter)
        problems.bluetooth = radio.problem

        let played = devices.output.status
        let heard = microphone?.status
        let lately = xruns.update(count: played.xruns + (heard?.xruns ?? 0), atMilliseconds: milliseconds)
        if let last, last.played == played, last.heard == heard, last.lately == lately { return }
        last = (played, heard, lately)
        manager.report(.audioPermission, present: played.health == .permissionDenied)
        manager.report(.microphonePermission, present: heard?.health == .permissionDenied)
        manager.report(.audioMissing, present: played.health == .missing || heard?.health == .missing)
        manager.report(.audioUnderruns, present: lately)

        let problem = played.problem ?? heard?.problem
        let text = problem.map { "\($0)" }
        if text != shownProblem {
            if let text {
                log("error: \(text); retrying (every 1 s, backing off to 30 s); BLE goes on meanwhile")
            } else if let shownProblem {
                log("audio: device back after: \(shownProblem); playing again")
            }
            shownProblem = text
        }
        problems.audio = text ?? (lately ? "\(played.xruns) underruns" + (heard.map { ", \($0.xruns) overruns" } ?? "") : nil)
        if lately && !shownUnderruns {
            log("warning: audio: underrun recovered (\(played.xruns) played" + (heard.map { ", \($0.xruns) captured" } ?? "")
                + " so far); the audio LED blinks fast for 10 s")
        }
        shownUnderruns = lately
    }

    /// Makes the manager's error handlers speak in the daemon's log: Nearby's three by their
    /// names, the other device problems through ``MessageManager/onProblem``.
    static func logHandlers(of manager: MessageManager, to log: @escaping (String) -> Void) {
        func line(_ handler: String, _ problem: MediumProblem, _ present: Bool) -> String {
            "nearby: \(handler)(\(present)): \(problem.identifier) " + (present ? "(\(problem))" : "cleared")
        }
        manager.onMicrophonePermissionError = { log(line("onMicrophonePermissionError", .microphonePermission, $0)) }
        manager.onBluetoothPermissionError = { log(line("onBluetoothPermissionError", .bluetoothPermission, $0)) }
        manager.onBluetoothPowerError = { log(line("onBluetoothPowerError", .bluetoothPower, $0)) }
        manager.onProblem = { problem, present in
            switch problem {
            case .microphonePermission, .bluetoothPermission, .bluetoothPower: return
            default: log(line("onProblem", problem, present))
            }
        }
    }
}
