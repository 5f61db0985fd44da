import NearcastCore
import NearcastNearby

/// The status LEDs' model: the status patterns the box's state calls for, or the walk `leds
/// test` started. ``LEDDisplay`` puts it on the LEDs each period; `leds` and `status` read it.
final class StatusLights {
    private(set) var panel = LEDPanel()
    private let manager: MessageManager
    private let publications: Publications
    private let problems: DriverProblems

    init(manager: MessageManager, publications: Publications, problems: DriverProblems) {
        self.manager = manager
        self.publications = publications
        self.problems = problems
    }

    /// What the LEDs show: whether the box is on the air, consent, and the drivers' states as
    /// the manager's current problems say.
    var deviceStates: DeviceStates {
        let problems = manager.currentProblems
        let consent = manager.permission.isGranted
        return DeviceStates(
            broadcasting: consent && !publications.entries.isEmpty && publications.strategy.mode.contains(.broadcast),
            audio: problems.audioHealth, bluetooth: problems.bluetoothHealth, consentGranted: consent,
            stateNotSaved: self.problems.state != nil)
    }

    /// Each LED's name and pattern, in table order.
    var patterns: [(String, String)] {
        StatusLED.allCases.map { ($0.rawValue, panel.isWalking ? "walk" : panel.pattern(of: $0).name) }
    }

    /// `leds test`: each LED alone on for a second, then back to the patterns.
    func startWalk(atMilliseconds now: Int64) { panel.startWalk(atMilliseconds: now) }

    /// Advances the patterns to `now`; `set` hears each LED whose level changes.
    func update(atMilliseconds now: Int64, _ set: (StatusLED, Bool) -> Void) {
        panel.update(states: deviceStates, atMilliseconds: now, changed: set)
    }

    func pattern(of led: StatusLED) -> LEDPattern { panel.pattern(of: led) }
}
