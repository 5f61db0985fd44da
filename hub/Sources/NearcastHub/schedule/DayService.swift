import ServiceLifecycle

/// Runs `DayRunner` once a second while the hub serves.
struct DayService: Service {
    static let everyMilliseconds: Int64 = 1_000

    let runner: DayRunner
    let clock: HubClock

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await runner.tick(nowMs: clock.nowMs())
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Self.everyMilliseconds)) }
        }
    }
}
