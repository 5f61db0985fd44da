import NearcastNearby
import NearcastCore
import NearcastDrivers

/// Running the daemon: `debug`, `config`, `restart`.
enum MaintenanceCommands {
    static func commands(_ manager: MessageManager, requests: LoopRequests, settings: SettingsKeeper,
                         log: LogSink) -> [ConsoleCommandDescriptor] { [

        ConsoleCommandDescriptor("debug", completions: ["on", "off", "stall"], usage: "debug on|off | debug stall SECONDS",
                                 summary: "log every scheduling decision; stall the loop (watchdog test)", arguments: 1...2,
                                 changesState: { _ in true }, persists: { $0.first != "stall" }) { call throws(ConsoleFailure) in
            if call[0] == "stall" {
                guard call.count == 2, let seconds = Int(call[1]), (1...LoopRequests.maximumStall).contains(seconds) else {
                    throw ConsoleFailure("debug stall takes 1 to \(LoopRequests.maximumStall) seconds")
                }
                requests.post(.stall(seconds: seconds))
                return ["stalling the daemon's loop for \(seconds) s: broadcasting pauses, and under systemd a stall longer "
                        + "than WatchdogSec (10 s) ends with the watchdog restarting the daemon"]
            }
            guard call.count == 1, call[0] == "on" || call[0] == "off" else { throw ConsoleFailure("on or off") }
            manager.debugLogging = call[0] == "on"
            return ["debug logging \(call[0])"]
        },
        ConsoleCommandDescriptor("config", completions: ["show", "save"], usage: "config show|save",
                                 summary: "the settings in effect; save them so the box starts with them", arguments: 1...1,
                                 changesState: { $0.first == "save" }) { call throws(ConsoleFailure) in
            try config(call.arguments, settings, log: log)
        },
        ConsoleCommandDescriptor("restart", usage: "restart", summary: "stop cleanly and start again",
                                 changesState: { _ in true }) { call throws(ConsoleFailure) in
            requests.post(.restart)
            return ["restarting: broadcasting stops for a moment"]
        },
    ] }

    private static func config(_ args: [String], _ keeper: SettingsKeeper, log: LogSink) throws(ConsoleFailure) -> [String] {
        let path = keeper.path
        let settings = keeper.inEffect
        switch args {
        case ["show"]:
            let saved = keeper.saved
            // One line per setting that `config save` keeps, from the table of settings.
            let layer = settings.layer
            return BoxSettings.all.compactMap { $0.consoleLine(layer) } + [
                saved == settings ? "saved in \(path): the box starts with these"
                    : saved != nil ? "changed since the last config save (\(path)): a restart goes back to the saved settings"
                    : "not saved: the box starts from the board's defaults (config save keeps these)"]
        case ["save"]:
            do { try keeper.save() } catch { throw ConsoleFailure("settings not saved: \(error)") }
            log("console: settings saved in \(path) (\(settings.publications.count) publications)")
            let count = settings.publications.count
            return ["saved in \(path): \(settings.strategy), \(count) publication\(count == 1 ? "" : "s"); the box starts with these"]
        default:
            throw ConsoleFailure("show or save")
        }
    }
}
