import NIOConcurrencyHelpers

/// How many hub instances serve the venue now, and so each one's share of the venue's rate
/// limits: with n alive, each allows 1/n of every rate and burst that protects the room (per
/// address, per phone id, per key, per beacon; the guessing budgets), so a load balancer that
/// spreads a client's requests over the instances lets through what one instance alone would,
/// and a client that reaches only one instance gets less, never more. Kept by `VenueService`
/// from the instances' heartbeats in the shared database; 1 on a hub alone (SQLite, memory).
public final class VenueShare: Sendable {
    /// How often each instance says it is alive, and how long it counts as alive after.
    static let heartbeatMilliseconds: Int64 = 2_000
    static let aliveMilliseconds: Int64 = 6_000

    private let alive = NIOLockedValueBox(1)

    public init() {}

    /// The instances alive (at least 1: this one).
    public var instances: Int { alive.withLockedValue { $0 } }

    func set(instances: Int) { alive.withLockedValue { $0 = max(1, instances) } }

    /// `figure` as this instance's share of it.
    func share(of figure: Double) -> Double { figure / Double(instances) }
}
