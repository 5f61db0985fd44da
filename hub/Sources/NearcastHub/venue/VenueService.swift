import Logging
import Metrics
import ServiceLifecycle

/// Keeps this instance one of the venue's, every `VenueShare.heartbeatMilliseconds`: says it is
/// alive and learns how many instances are (`VenueShare`, which scales every rate limit to this
/// instance's share; `nearcast_hub_instances_alive` on /metrics), and trades the boxes its phones
/// heard with the others' (`HeardBoxes`). When it stops it leaves at once, so the others take up
/// its share without waiting. If the database does not answer, the last count stands.
struct VenueService: Service {
    let venue: any VenueRepository
    let share: VenueShare
    let heardBoxes: HeardBoxes
    let instanceID: String
    let clock: HubClock
    let logger: Logger
    /// The storage, for its errors' readable descriptions.
    let storage: any StorageHealth

    /// How far back the boxes heard elsewhere are read (the hint looks back a few minutes).
    static let heardWindowMilliseconds: Int64 = 10 * 60_000

    func run() async throws {
        let gauge = Gauge(label: "nearcast_hub_instances_alive")
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await beat(gauge)
                if failing { logger.info("venue: the database answers again; \(share.instances) instance(s) alive") }
                failing = false
            } catch {
                if !failing { logger.warning("venue: cannot tell the others this instance is alive (\(storage.describe(error))); keeping \(share.instances) instance(s)") }
                failing = true
            }
            try? await Task.sleep(for: .milliseconds(VenueShare.heartbeatMilliseconds))
        }
        do {
            try await venue.leave(instance: instanceID)
        } catch {
            logger.warning("venue: could not say this instance is leaving (\(storage.describe(error))); the others drop it within \(VenueShare.aliveMilliseconds / 1000) s")
        }
    }

    /// One heartbeat: alive, how many are, and the boxes heard here and elsewhere.
    func beat(_ gauge: Gauge) async throws {
        let now = clock.nowMs()
        let alive = try await venue.heartbeat(instance: instanceID, nowMs: now)
        if alive != share.instances { logger.info("venue: \(alive) instance(s) alive; this one allows 1/\(alive) of each rate limit") }
        share.set(instances: alive)
        gauge.record(alive)
        let fresh = heardBoxes.takeFresh()
        if !fresh.isEmpty { try await venue.recordHeard(fresh) }
        heardBoxes.merge(try await venue.heard(sinceMs: now - Self.heardWindowMilliseconds))
    }
}
