/// The knobs of the token scheduler, in ticks of its clock.
///
/// The scheduler counts time in ticks of the audio output (one tick = one sample) so that bursts
/// land on exact samples; a box without audio can use any tick rate (1000 for milliseconds).
public struct SchedulerConfiguration: Sendable, Equatable {
    /// The most publications the scheduler holds at once (fixed capacity).
    public static let maximumPublications = 8

    /// Ticks in one second of the scheduler's clock (the audio sample rate).
    public var ticksPerSecond: Int
    /// How often each audio publication gets a burst, in ticks (default 1 s). With several
    /// publications the bursts are spread round-robin across the interval; when that would
    /// break the duty-cycle cap or make bursts overlap, each publication's interval stretches.
    public var audioInterval: Int64
    /// Ticks one audio burst lasts (the modem's airtime, fades included).
    public var audioBurstLength: Int64
    /// Silence kept after each burst before the next may start (lets a room's echo die down).
    public var audioGuard: Int64
    /// The largest fraction of time the speaker may be sending bursts, over any stretch of time.
    public var audioDutyCycle: Double
    /// Ticks each publication's data stays on an advertising set that it shares with others
    /// (default 1 s): how legacy advertising rotates through publications.
    public var bleRotationInterval: Int64
    /// Advertising sets the controller gives us: 1 for legacy advertising; with extended
    /// advertising, publication `i` uses set `i % bleAdvertisingSets`, so 8 or more sets give every
    /// publication its own set and nothing rotates.
    public var bleAdvertisingSets: Int
    /// An EID switches at a random moment in the first `eidSwitchFraction` of its epoch (the
    /// Eddystone-EID guidelines recommend randomizing the switch within the window so that the
    /// moment does not mark the beacon's clock; kept early so a resolver's window still holds it).
    public var eidSwitchFraction: Double

    /// Defaults for a clock of `ticksPerSecond` and bursts of `audioBurstLength` ticks.
    public init(ticksPerSecond: Int, audioBurstLength: Int64) {
        precondition(ticksPerSecond > 0 && audioBurstLength > 0, "ticks per second and burst length must be positive")
        self.ticksPerSecond = ticksPerSecond
        self.audioBurstLength = audioBurstLength
        audioInterval = Int64(ticksPerSecond)
        audioGuard = Int64(ticksPerSecond / 20)
        audioDutyCycle = 0.5
        bleRotationInterval = Int64(ticksPerSecond)
        bleAdvertisingSets = 1
        eidSwitchFraction = 0.25
    }

    /// The shortest time between two burst starts that keeps bursts apart (burst + guard) and
    /// the duty cycle under its cap.
    public var minimumBurstSpacing: Int64 {
        let forDuty = Int64((Double(audioBurstLength) / audioDutyCycle).rounded(.up))
        return max(audioBurstLength + audioGuard, forDuty)
    }

    /// What is wrong with these values, or nil when they are usable.
    public var problem: String? {
        if audioInterval <= 0 { return "the audio interval must be positive" }
        if audioGuard < 0 { return "the audio guard time cannot be negative" }
        if !(audioDutyCycle > 0 && audioDutyCycle <= 1) { return "the audio duty cycle must be above 0 and at most 1" }
        if bleRotationInterval <= 0 { return "the BLE rotation interval must be positive" }
        if bleAdvertisingSets < 1 { return "at least one BLE advertising set is needed" }
        if !(eidSwitchFraction >= 0 && eidSwitchFraction < 1) { return "the EID switch fraction must be in [0, 1)" }
        return nil
    }
}
