import NIOConcurrencyHelpers

/// Token buckets by key (a client address, an API key's project): each holds up to `burst`
/// tokens and refills at `rate` a second; a request takes one (or `cost`). Buckets that have
/// refilled to full are dropped now and then, so a scan from many addresses leaves nothing
/// behind. With a `VenueShare`, the rate and burst are this instance's share of the venue's
/// (`rate` and `burst` are the venue's figures).
final class TokenBuckets: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedNs: UInt64
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var lastSweepNs: UInt64 = 0
    }

    private let venueRate: Double
    private let venueBurst: Double
    private let share: VenueShare?
    private let state = NIOLockedValueBox(State())

    init(rate: Double, burst: Double, share: VenueShare? = nil) {
        venueRate = rate
        venueBurst = burst
        self.share = share
    }

    /// `rate`'s figures: refills at its `perSecond`, holds its `burst`.
    convenience init(_ rate: HubLimits.Rate, share: VenueShare? = nil) {
        self.init(rate: rate.perSecond, burst: rate.burst, share: share)
    }

    /// Refills at `perMinute` a minute and holds a minute's worth.
    convenience init(perMinute: Double, share: VenueShare? = nil) {
        self.init(rate: perMinute / 60, burst: perMinute, share: share)
    }

    /// This instance's rate and burst now. A burst is at least one token (or the venue's whole
    /// burst if that is less), so a small budget split many ways still admits something.
    var rate: Double { share?.share(of: venueRate) ?? venueRate }
    var burst: Double { share.map { max(min(venueBurst, 1), $0.share(of: venueBurst)) } ?? venueBurst }

    /// Takes `cost` tokens from `key`'s bucket at `nowNs`: nil when there were enough, else the
    /// whole seconds to wait until there are (at least 1), and nothing is taken.
    func take(_ key: String, cost: Double = 1, nowNs: UInt64) -> Int? {
        let (rate, burst) = (rate, burst)
        return state.withLockedValue { state in
            sweep(&state, nowNs: nowNs, rate: rate, burst: burst)
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updatedNs: nowNs)
            refill(&bucket, nowNs: nowNs, rate: rate, burst: burst)
            guard bucket.tokens >= cost else {
                state.buckets[key] = bucket
                return max(1, Int(((cost - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= cost
            state.buckets[key] = bucket
            return nil
        }
    }

    /// Takes `cost` tokens whether or not there are enough (the bucket may go below zero, so
    /// what was spent is paid back before the next request is allowed).
    func charge(_ key: String, cost: Double, nowNs: UInt64) {
        guard cost > 0 else { return }
        let (rate, burst) = (rate, burst)
        state.withLockedValue { state in
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updatedNs: nowNs)
            refill(&bucket, nowNs: nowNs, rate: rate, burst: burst)
            bucket.tokens -= cost
            state.buckets[key] = bucket
        }
    }

    /// nil when `key`'s bucket holds at least `tokens`, else the whole seconds until it will;
    /// takes nothing.
    func wait(_ key: String, tokens: Double, nowNs: UInt64) -> Int? {
        let (rate, burst) = (rate, burst)
        return state.withLockedValue { state in
            guard var bucket = state.buckets[key] else { return nil }
            refill(&bucket, nowNs: nowNs, rate: rate, burst: burst)
            return bucket.tokens >= tokens ? nil : max(1, Int(((tokens - bucket.tokens) / rate).rounded(.up)))
        }
    }

    /// Whether `key`'s bucket is full (or absent, which is the same): nothing spent lately.
    func isFull(_ key: String, nowNs: UInt64) -> Bool {
        let (rate, burst) = (rate, burst)
        return state.withLockedValue { state in
            guard var bucket = state.buckets[key] else { return true }
            refill(&bucket, nowNs: nowNs, rate: rate, burst: burst)
            return bucket.tokens >= burst
        }
    }

    /// How many buckets are kept (for tests and /metrics).
    var count: Int { state.withLockedValue { $0.buckets.count } }

    private func refill(_ bucket: inout Bucket, nowNs: UInt64, rate: Double, burst: Double) {
        let elapsed = Double(nowNs &- bucket.updatedNs) / 1e9
        if nowNs > bucket.updatedNs { bucket.tokens = min(burst, bucket.tokens + elapsed * rate) }
        bucket.updatedNs = max(bucket.updatedNs, nowNs)
    }

    /// Every ten seconds at most: drop buckets that are full again (as good as absent).
    private func sweep(_ state: inout State, nowNs: UInt64, rate: Double, burst: Double) {
        guard nowNs &- state.lastSweepNs > 10_000_000_000 else { return }
        state.lastSweepNs = nowNs
        state.buckets = state.buckets.filter { _, bucket in
            bucket.tokens + Double(nowNs &- bucket.updatedNs) / 1e9 * rate < burst
        }
    }
}
