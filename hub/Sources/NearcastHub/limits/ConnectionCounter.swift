import Metrics
import NIOConcurrencyHelpers

/// Open connections counted in all and per client address, each under its cap.
final class ConnectionCounter: Sendable {
    /// Which cap refused a connection.
    enum Refusal: Error { case total, address }

    let totalCap: Int
    let perAddressCap: Int
    private let counts = NIOLockedValueBox((total: 0, byAddress: [String: Int]()))
    private let gauge = Gauge(label: "nearcast_hub_open_connections")

    init(total: Int, perAddress: Int) {
        totalCap = total
        perAddressCap = perAddress
    }

    /// Counts a new connection from `address`, or says which cap it would pass (only the total
    /// without `perAddressCap`: a trusted proxy's, `GuardedChildChannel`).
    func admit(_ address: String, perAddressCap capped: Bool = true) -> Refusal? {
        let (refusal, open): (Refusal?, Int) = counts.withLockedValue { counts in
            if counts.total >= totalCap { return (.total, counts.total) }
            if capped && counts.byAddress[address, default: 0] >= perAddressCap { return (.address, counts.total) }
            counts.total += 1
            counts.byAddress[address, default: 0] += 1
            return (nil, counts.total)
        }
        gauge.record(open)
        return refusal
    }

    /// A connection admitted from `address` has closed.
    func release(_ address: String) {
        let open = counts.withLockedValue { counts in
            counts.total -= 1
            let left = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = left > 0 ? left : nil
            return counts.total
        }
        gauge.record(open)
    }

    /// Connections open now.
    var open: Int { counts.withLockedValue { $0.total } }
}
