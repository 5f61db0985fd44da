import NearcastCore
import NearcastDrivers
import NearcastSystemd

/// Speaks systemd's notify protocol for the daemon: READY once the first period is played and
/// every driver's state is known, a one-line STATUS that follows the LEDs' states, watchdog
/// pings, RELOADING around SIGHUP and STOPPING at the end. Silent when not run by systemd.
final class SystemdReporter {
    private let notifier: SystemdNotifier?
    private var announced: (states: DeviceStates, publications: Int)?
    /// When the last watchdog ping went (monotonic seconds).
    private var lastPing = -Double.infinity

    init(log: (String) -> Void) {
        do {
            notifier = try SystemdNotifier.fromEnvironment()
        } catch {
            notifier = nil
            log("warning: systemd: \(error); not notifying")
        }
        if let notifier {
            log("systemd: notifying readiness"
                + (notifier.watchdogInterval.map { ", watchdog ping every \(Formatting.fixed($0, decimals: 1)) s" } ?? ""))
        }
    }

    /// Once per period, after the period is played.
    func periodPlayed(_ lights: StatusLights, publications: Publications, problems: DriverProblems) {
        guard let notifier else { return }
        let states = lights.deviceStates
        let count = publications.entries.count
        if announced == nil || announced!.states != states || announced!.publications != count {
            let status = SystemdNotification.status(Self.status(states, publications: count, problems))
            notifier.send(announced == nil ? [.ready, status] : [status])
            announced = (states, count)
        }
        // Half the watchdog timeout between pings, as sd_watchdog_enabled(3) advises.
        let now = MonotonicClock.seconds()
        if let interval = notifier.watchdogInterval, now - lastPing >= interval {
            lastPing = now
            notifier.send(.watchdog)
        }
    }

    /// Around a configuration reload.
    func reloading(_ body: () -> Void) {
        notifier?.send(.reloading())
        body()
        notifier?.send(.ready)
    }

    func stopping(_ reason: String) {
        notifier?.send(.stopping, .status("stopping (\(reason))"))
    }

    /// The one-line state `systemctl status` shows.
    static func status(_ states: DeviceStates, publications count: Int, _ problems: DriverProblems) -> String {
        let what = !states.consentGranted ? "consent not granted: broadcasting nothing"
            : states.broadcasting ? "broadcasting \(count) publication\(count == 1 ? "" : "s")"
            : "not broadcasting (no publications)"
        return what + "; audio \(problems.audio ?? "ok"); bluetooth \(problems.bluetooth ?? "ok")"
            + (problems.state.map { "; state not saved: \($0)" } ?? "")
    }
}
