import Metrics
import NIOConcurrencyHelpers
import NIOCore

/// The hub's limits at work: the rate buckets per address and per key, the unknown-token
/// budget, the open event streams and the open connections, with a counter on /metrics for
/// each time one bites (`nearcast_hub_limited_total{limit="..."}`).
public final class HubLimiter: Sendable {
    /// Which limit refused something, as /metrics names it.
    enum Limit: String, CaseIterable, Sendable {
        case addressRate = "address_rate"
        case audienceAddressRate = "audience_address_rate"
        case presenterAddressRate = "presenter_address_rate"
        case phoneRate = "phone_rate"
        case keyLookups = "key_lookups"
        case failedCodes = "failed_codes"
        case phoneIDs = "phone_ids"
        case heardPasses = "heard_passes"
        case keyRate = "key_rate"
        case unknownTokens = "unknown_tokens"
        case addressWatches = "address_watches"
        case keyWatches = "key_watches"
        case connections
        case addressConnections = "address_connections"
        case headerTimeout = "header_timeout"
        case idleTimeout = "idle_timeout"
        case fieldChecks = "field_checks"
        case reachReports = "reach_reports"
    }

    public let settings: HubLimits
    /// Request rates per address, per phone id and per key.
    let rates: CallerRates
    /// What guessing costs: codes, phone ids, unknown tokens, field checks.
    let budgets: GuessBudgets
    static let missMemorySeconds = 600.0
    /// Connections the hub keeps open at most: `limits.connections`, or fewer when the process's
    /// descriptors would not hold them (`DescriptorBudget`).
    public var connectionCap: Int { connections.totalCap }
    let streams: StreamQuota
    let connections: ConnectionCounter
    private let counters: [Limit: Counter]

    /// How many instances serve the venue: each allows its share of the rates and budgets.
    public let venue: VenueShare

    /// `descriptorLimit`: the process's (`DescriptorBudget`); the connections' cap stays under it.
    /// `venue`: the instances alive, whose share of each rate this instance allows (open streams
    /// and connections are this instance's own: they protect its descriptors, not the room).
    public init(_ settings: HubLimits, venue: VenueShare = VenueShare(), descriptorLimit: Int = DescriptorBudget.current()) {
        self.settings = settings
        self.venue = venue
        rates = CallerRates(settings, venue: venue)
        budgets = GuessBudgets(settings, venue: venue)
        streams = StreamQuota(perAddress: settings.connections.watchesPerAddress, perKey: settings.connections.watchesPerKey)
        connections = ConnectionCounter(total: min(settings.connections.total, DescriptorBudget.connections(under: descriptorLimit)),
                                        perAddress: settings.connections.perAddress)
        var counters: [Limit: Counter] = [:]
        for limit in Limit.allCases {
            counters[limit] = Counter(label: "nearcast_hub_limited_total", dimensions: [("limit", limit.rawValue)])
        }
        self.counters = counters
    }

    static func nowNs() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    func count(_ limit: Limit) { counters[limit]?.increment() }

    /// A request from `address` by a caller of class `caller`: 429 past that class's rate at the
    /// address, or past the phone's own rate for a phone with an id. Each class has its own
    /// bucket, so a keyless flood from a venue's NAT address spends nothing of the presenter's or
    /// the phones' budgets there, and a phone with an id spends only its own.
    func admitRequest(from address: String?, as caller: CallerClass = .keyless) throws(APIError) {
        guard settings.enabled else { return }
        let (buckets, bucket, limit, rate, who): (TokenBuckets, String, Limit, HubLimits.Rate, String)
        switch caller {
        case .phone(let id):
            (buckets, bucket, limit, rate, who) = (rates.phoneRate, id, .phoneRate, settings.rates.perPhone, "with this phone id")
        case .keyless, .audience, .presenter:
            guard let address else { return }
            switch caller {
            case .audience: (buckets, bucket, limit, rate, who) = (rates.audienceAddressRate, address, .audienceAddressRate,
                                                                   settings.rates.audiencePerAddress,
                                                                   "from your address with the public key or a pass and no phone id")
            case .presenter: (buckets, bucket, limit, rate, who) = (rates.presenterAddressRate, address, .presenterAddressRate,
                                                                    settings.rates.presenterPerAddress, "from your address with the secret key")
            default: (buckets, bucket, limit, rate, who) = (rates.addressRate, address, .addressRate, settings.rates.perAddress,
                                                            "from your address without a key")
            }
        }
        if let wait = buckets.take(bucket, nowNs: Self.nowNs()) {
            count(limit)
            throw APIError.tooMany("too many requests \(who): at most \(Self.format(rate.perSecond)) a second; "
                                   + "try again in \(wait) s", retryAfter: wait)
        }
    }

    /// Before a code is compared: 429 while `address`, or the hub as a whole, has spent its
    /// budget of codes that matched nothing. Checked before the comparison (a guess past the
    /// budget learns nothing), spent only by a miss (a phone typing the right code spends none).
    func admitCodeAttempt(from address: String?) throws(APIError) {
        guard settings.enabled else { return }
        let now = Self.nowNs()
        let perAddress = address.flatMap { budgets.failedCodesPerAddress.wait($0, tokens: 1, nowNs: now) }
        if let wait = perAddress ?? budgets.failedCodes.wait("", tokens: 1, nowNs: now) {
            count(.failedCodes)
            throw APIError.tooMany("too many codes that are on no screen were tried \(perAddress != nil ? "from your address" : "on this hub"); "
                                   + "try again in \(wait) s (a phone that hears the room's box needs no code)", retryAfter: wait)
        }
    }

    /// Before a phone id is given to `address`: 429 once the address has been given its ids a
    /// minute. Only an id given spends the budget (`spendPhoneID`): attempts that earn none
    /// (unsolved, an expired challenge) cost the address nothing but their work.
    func admitPhoneID(from address: String?) throws(APIError) {
        guard settings.enabled, let address else { return }
        if let wait = budgets.phoneIDs.wait(address, tokens: 1, nowNs: Self.nowNs()) {
            count(.phoneIDs)
            throw APIError.tooMany("too many phone ids given to your address: at most \(Self.format(settings.guessing.phoneIdsPerMinutePerAddress)) a minute; "
                                   + "try again in \(wait) s", retryAfter: wait)
        }
    }

    /// A phone id was given to `address`.
    func spendPhoneID(from address: String?) {
        guard settings.enabled, let address else { return }
        budgets.phoneIDs.charge(address, cost: 1, nowNs: Self.nowNs())
    }

    /// A pass for a heard EID asked for from `address`: 429 past the address's heard passes a
    /// minute.
    func admitHeardPass(from address: String?) throws(APIError) {
        guard settings.enabled, let address else { return }
        if let wait = budgets.heardPasses.take(address, nowNs: Self.nowNs()) {
            count(.heardPasses)
            throw APIError.tooMany("too many passes for a heard EID asked for from your address: at most "
                                   + "\(Self.format(settings.guessing.heardPassesPerMinutePerAddress)) a minute; try again in \(wait) s",
                                   retryAfter: wait)
        }
    }

    /// A code that matched no screen, tried from `address`.
    func spendFailedCode(from address: String?) {
        guard settings.enabled else { return }
        let now = Self.nowNs()
        if let address { budgets.failedCodesPerAddress.charge(address, cost: 1, nowNs: now) }
        budgets.failedCodes.charge("", cost: 1, nowNs: now)
    }

    /// Whether `address` may have one more key it sent looked up in the database now (keys are
    /// cached for a second once read; made-up ones are what this bounds).
    func admitKeyLookup(from address: String?) -> Bool {
        guard settings.enabled, let address else { return true }
        guard rates.keyLookups.take(address, nowNs: Self.nowNs()) == nil else {
            count(.keyLookups)
            return false
        }
        return true
    }

    /// A request with `access`'s key: 429 past the key's rate.
    func admitRequest(_ access: Access) throws(APIError) {
        guard settings.enabled else { return }
        if let wait = rates.keyRate.take(access.limitKey, nowNs: Self.nowNs()) {
            count(.keyRate)
            throw APIError.tooMany("too many requests with this project's \(access.kindName) key: at most "
                                   + "\(Self.format(settings.rates.perKey.perSecond)) a second; try again in \(wait) s", retryAfter: wait)
        }
    }

    /// Before a resolve: 429 when `address` has spent its budget of unknown tokens, or when it
    /// has missed in the last `missMemorySeconds` and `project`'s budget (all such addresses together) is spent. An
    /// address whose lookups all found something is never held to the project's budget, so a
    /// walk of the short-token space from many addresses brakes itself without refusing the
    /// room's phones, which resolve what they hear.
    func admitResolve(from address: String?, project: String) throws(APIError) {
        guard settings.enabled, let address else { return }
        let now = Self.nowNs()
        if let wait = budgets.unknownTokens.wait(address, tokens: 1, nowNs: now) {
            count(.unknownTokens)
            throw APIError.tooMany("too many unknown tokens observed from your address (at most "
                                   + "\(Self.format(settings.guessing.unknownTokensPerMinutePerAddress)) a minute); try again in \(wait) s",
                                   retryAfter: wait)
        }
        guard !budgets.recentMissers.isFull(address, nowNs: now),
              let wait = budgets.unknownTokensPerProject.wait(project, tokens: 1, nowNs: now) else { return }
        count(.unknownTokens)
        throw APIError.tooMany("too many unknown tokens observed with this project's keys from addresses that missed lately (at most "
                               + "\(Self.format(settings.guessing.unknownTokensPerMinutePerProject)) a minute); try again in \(wait) s",
                               retryAfter: wait)
    }

    /// After a resolve: `misses` observations named no beacon.
    func spendUnknownTokens(_ misses: Int, from address: String?, project: String) {
        guard settings.enabled, let address, misses > 0 else { return }
        let now = Self.nowNs()
        budgets.unknownTokens.charge(address, cost: Double(misses), nowNs: now)
        budgets.unknownTokensPerProject.charge(project, cost: Double(misses), nowNs: now)
        budgets.recentMissers.charge(address, cost: 1, nowNs: now)
    }

    /// A field check result for `project`, about to be stored: 429 past the project's rate
    /// (every key and address of the project together: it bounds the rows written).
    func admitFieldCheck(project: String) throws(APIError) {
        try admit(project, budgets.fieldChecks, .fieldChecks, "field check results", perMinute: settings.fieldChecks.perMinutePerProject)
    }

    /// A reach report for `project`, about to be written: 429 past the project's rate (likewise).
    func admitReachReport(project: String) throws(APIError) {
        try admit(project, budgets.reachReports, .reachReports, "reach reports", perMinute: settings.reach.perMinutePerProject)
    }

    /// One of `project`'s writes of `what`, taken from its bucket: 429 past `perMinute`.
    private func admit(_ project: String, _ buckets: TokenBuckets, _ limit: Limit, _ what: String, perMinute: Double) throws(APIError) {
        guard settings.enabled else { return }
        if let wait = buckets.take(project, nowNs: Self.nowNs()) {
            count(limit)
            throw APIError.tooMany("too many \(what) for this project: at most \(Self.format(perMinute)) a minute; try again in \(wait) s",
                                   retryAfter: wait)
        }
    }

    /// A new event stream for `address` and `key`: its slot (released when the stream ends), or
    /// 429.
    func openStream(address: String?, key: String) throws(APIError) -> StreamQuota.Slot? {
        guard settings.enabled else { return nil }
        switch streams.acquire(address: address ?? "", key: key) {
        case .success(let slot):
            return slot
        case .failure(let refusal):
            switch refusal {
            case .address:
                count(.addressWatches)
                throw APIError.tooMany("too many open watches from your address: at most \(settings.connections.watchesPerAddress)", retryAfter: 5)
            case .key:
                count(.keyWatches)
                throw APIError.tooMany("too many open watches with this key: at most \(settings.connections.watchesPerKey)", retryAfter: 5)
            }
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The request rates: per address, one bucket for each class of caller (`CallerClass`); per
/// phone id a phone's own, which no other phone at its address can spend; per key; and the key
/// lookups an address may cause. Each is this instance's share of the venue's (`VenueShare`).
struct CallerRates: Sendable {
    let addressRate: TokenBuckets
    let audienceAddressRate: TokenBuckets
    let presenterAddressRate: TokenBuckets
    let phoneRate: TokenBuckets
    let keyRate: TokenBuckets
    let keyLookups: TokenBuckets

    init(_ settings: HubLimits, venue: VenueShare) {
        addressRate = TokenBuckets(settings.rates.perAddress, share: venue)
        audienceAddressRate = TokenBuckets(settings.rates.audiencePerAddress, share: venue)
        presenterAddressRate = TokenBuckets(settings.rates.presenterPerAddress, share: venue)
        phoneRate = TokenBuckets(settings.rates.perPhone, share: venue)
        keyLookups = TokenBuckets(rate: settings.guessing.keyLookupsPerSecondPerAddress, burst: settings.guessing.keyLookupsPerSecondPerAddress * 2,
                                  share: venue)
        keyRate = TokenBuckets(settings.rates.perKey, share: venue)
    }
}

/// What guessing costs: codes that matched no screen (per address, and under the key "" for
/// the whole hub), phone ids, unknown tokens (per address, and per project for every address
/// that missed lately), and field checks and reach reports per project.
struct GuessBudgets: Sendable {
    let failedCodesPerAddress: TokenBuckets
    let failedCodes: TokenBuckets
    let phoneIDs: TokenBuckets
    let heardPasses: TokenBuckets
    let unknownTokens: TokenBuckets
    let unknownTokensPerProject: TokenBuckets
    /// Addresses that missed lately: one token each, spent by a miss, back after
    /// `missMemorySeconds`. Not the address's own budget, which refills in seconds: a walker
    /// waiting for that to fill again would be let past the project's budget every few seconds.
    let recentMissers: TokenBuckets
    let fieldChecks: TokenBuckets
    let reachReports: TokenBuckets

    init(_ settings: HubLimits, venue: VenueShare) {
        let guessing = settings.guessing
        failedCodesPerAddress = TokenBuckets(perMinute: guessing.failedCodesPerMinutePerAddress, share: venue)
        failedCodes = TokenBuckets(perMinute: guessing.failedCodesPerMinute, share: venue)
        phoneIDs = TokenBuckets(perMinute: guessing.phoneIdsPerMinutePerAddress, share: venue)
        heardPasses = TokenBuckets(perMinute: guessing.heardPassesPerMinutePerAddress, share: venue)
        unknownTokens = TokenBuckets(perMinute: guessing.unknownTokensPerMinutePerAddress, share: venue)
        unknownTokensPerProject = TokenBuckets(perMinute: guessing.unknownTokensPerMinutePerProject, share: venue)
        // A mark, not a budget: whether the address missed lately (each instance its own).
        recentMissers = TokenBuckets(rate: 1 / HubLimiter.missMemorySeconds, burst: 1)
        fieldChecks = TokenBuckets(perMinute: settings.fieldChecks.perMinutePerProject, share: venue)
        reachReports = TokenBuckets(perMinute: settings.reach.perMinutePerProject, share: venue)
    }
}
