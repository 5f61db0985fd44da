/// The four status LEDs: the status model's patterns, or a walk over them (`leds test`), turned
/// into line levels at a given time. The daemon calls ``update(states:atMilliseconds:changed:)``
/// each tick and writes only the lines whose level changed. Fixed storage; no allocation.
public struct LEDPanel: Sendable {
    /// How long each LED stays lit during a walk, in milliseconds.
    public static let walkStep: Int64 = 1_000

    private var patterns: FixedArray<Tuple4<LEDPattern>, LEDPattern> = FixedArray(repeating: .off)
    private var levels: FixedArray<Tuple4<Bool>, Bool> = FixedArray(repeating: false)
    private var known = false
    private var walkStart: Int64?

    public init() {}

    /// The pattern an LED follows now (the status model's, whatever a walk shows).
    public func pattern(of led: StatusLED) -> LEDPattern { patterns[led.index] }

    /// Whether an LED is lit (as last updated).
    public func isLit(_ led: StatusLED) -> Bool { levels[led.index] }

    /// Whether a walk is in progress.
    public var isWalking: Bool { walkStart != nil }

    /// Starts a walk at `now`: each LED alone on for ``walkStep``, in table order, then back to
    /// the status model.
    public mutating func startWalk(atMilliseconds now: Int64) { walkStart = now }

    /// Recomputes the patterns from `states` and the levels at `now`; calls `changed` for each
    /// LED whose level changed (every LED on the first call).
    public mutating func update(states: DeviceStates, atMilliseconds now: Int64,
                                changed: (StatusLED, Bool) -> Void) {
        var walking = -1
        if let start = walkStart {
            let step = (now - start) / Self.walkStep
            if step >= 0 && step < Int64(StatusLED.count) { walking = Int(step) } else if step >= 0 { walkStart = nil }
        }
        for index in 0..<StatusLED.count {                     // an index loop: no array iterator
            let led = StatusLED(index: index)
            patterns[index] = StatusModel.pattern(for: led, states)
            let lit = walking >= 0 ? walking == index : patterns[index].isLit(atMilliseconds: now)
            if !known || lit != levels[index] {
                levels[index] = lit
                changed(led, lit)
            }
        }
        known = true
    }
}
