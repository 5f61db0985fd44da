import ServiceLifecycle

/// Runs `DayRunner` once a second while the hub serves, just after each whole second of the
/// hub's clock: talks start on whole minutes, so a talk's change is made a few milliseconds after
/// its minute rather than anywhere in the second after it.
struct DayService: Service {
    static let everyMilliseconds: Int64 = 1_000
    /// How far past the whole second the runner looks: a clock read a hair early still finds
    /// the minute begun.
    static let pastTheSecondMilliseconds: Int64 = 5

    let runner: DayRunner
    let clock: HubClock

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await runner.tick(nowMs: clock.nowMs())
            let wait = Self.everyMilliseconds - clock.nowMs() % Self.everyMilliseconds + Self.pastTheSecondMilliseconds
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(wait)) }
        }
    }
}
