/// What the hub allows one client address and one key before it refuses (429 with Retry-After,
/// or a closed connection), set in the config file's `limits` and off with `serve --limits off`.
///
/// The defaults assume a venue: hundreds of phones behind one Wi-Fi NAT share an address, each
/// resolving what it hears every couple of seconds and holding two event streams, so the
/// per-address figures are high, and each class of caller (keyless, the audience's keys, the
/// presenter's secret key: `CallerClass`) has its own bucket per address; the per-key figures
/// bound what anyone holding the public key (which is in every audience URL) can take from the
/// hub as a whole.
///
/// The config file names each setting flat (`limits.burstPerKey`); here they are grouped by
/// subject (`rates.perKey.burst`), and `settings` pairs the two.
public struct HubLimits: Sendable, Equatable {
    /// False: no limit at all (a benchmark on loopback).
    public var enabled = true
    /// Requests a second per client address, per phone and per key.
    public var rates = RequestRates()
    /// What guessing costs: keys, codes, phone ids, tokens.
    public var guessing = Guessing()
    /// Open connections and event streams, and how long an idle or slow connection stays.
    public var connections = Connections()
    /// Field check results written and kept per project.
    public var fieldChecks = FieldChecks()
    /// The listener pages' reach reports taken per project, and the days they are kept.
    public var reach = Reach()

    public init() {}

    /// No limits.
    public static var off: HubLimits {
        var limits = HubLimits()
        limits.enabled = false
        return limits
    }

    /// Checks the settings, naming the first that makes no sense.
    public func validate() throws(HubLimitsError) {
        for (name, setting) in Self.settings {
            let value: Double
            switch setting {
            case .number(let field): value = self[keyPath: field]
            case .count(let field): value = Double(self[keyPath: field])
            case .flag, .bits: continue
            }
            guard value > 0 && value.isFinite else { throw HubLimitsError("limits.\(name) must be a positive number, not \(value)") }
        }
        let bits = guessing.phoneIdWorkBits
        guard (0...32).contains(bits) else { throw HubLimitsError("limits.phoneIdWorkBits must be 0 to 32, not \(bits)") }
        if rates.perAddress.burst < 1 || rates.perKey.burst < 1 { throw HubLimitsError("limits.burstPerAddress and burstPerKey must be at least 1") }
    }
}

extension HubLimits {
    /// A bucket's refill a second, and how many requests may come at once (its size).
    public struct Rate: Sendable, Equatable {
        public var perSecond: Double
        public var burst: Double
    }

    /// The request rates: per client address one bucket for each class of caller, per phone id
    /// and per key (`CallerRates`).
    public struct RequestRates: Sendable, Equatable {
        /// From one client address without a key (`requestsPerSecondPerAddress`, `burstPerAddress`).
        public var perAddress = Rate(perSecond: 200, burst: 400)
        /// The same for requests with the public key or a pass: a venue's NAT carries a thousand
        /// phones each resolving every couple of seconds, following, reacting, earning an id
        /// (`audienceRequestsPerSecondPerAddress`, `audienceBurstPerAddress`).
        public var audiencePerAddress = Rate(perSecond: 2_000, burst: 4_000)
        /// The same for requests with the project's secret key (the presenter's page, the box): a
        /// bucket of their own per address, which the audience's and keyless traffic cannot spend
        /// (`presenterRequestsPerSecondPerAddress`, `presenterBurstPerAddress`).
        public var presenterPerAddress = Rate(perSecond: 50, burst: 200)
        /// The same for each phone with an id the hub gave (`X-Nearcast-Phone` or `?phone=`), in a
        /// bucket of its own whatever its address: a phone resolves every couple of seconds, follows,
        /// reacts and loads a page image per turn, far inside this; a phone flooding is refused alone
        /// (`phoneRequestsPerSecond`, `phoneBurst`).
        public var perPhone = Rate(perSecond: 10, burst: 40)
        /// With one key (public or secret) from all addresses together (`requestsPerSecondPerKey`,
        /// `burstPerKey`).
        public var perKey = Rate(perSecond: 5_000, burst: 10_000)
    }

    /// What guessing costs (`GuessBudgets`): made-up keys, codes that match no screen, phone ids,
    /// tokens the hub does not know.
    public struct Guessing: Sendable, Equatable {
        /// Keys not read in the last second looked up per address per second (twice that at once):
        /// a flood of made-up keys is refused as keyless instead of reading the database.
        public var keyLookupsPerSecondPerAddress = 20.0
        /// Codes typed (or opened as /j/CODE) that match no screen, per client address and for the
        /// whole hub, per minute: past either, every code is refused for a while, so guessing one of
        /// the 2^30 codes is hopeless within an event (docs/presenter.md gives the expected time).
        public var failedCodesPerMinutePerAddress = 30.0
        public var failedCodesPerMinute = 300.0
        /// The work a phone id costs: leading zero bits of SHA-256 (2^bits tries on average: 20 is
        /// 0.25 s in Chromium on the build machine's core, about a second on a phone 4 times
        /// slower, 24 ids a second on one core; docs/presenter.md has each setting's).
        public var phoneIdWorkBits = 20
        /// Phone ids given per client address per minute (and at once): a venue's NAT, hundreds of
        /// phones joining at a talk's start, fits; a script inventing phones does not.
        public var phoneIdsPerMinutePerAddress = 3_000.0
        /// Passes given for a heard EID, per client address per minute: a phone that joined by
        /// the code renews its pass by hearing every few minutes; one EID heard (or recorded)
        /// does not mint passes without limit.
        public var heardPassesPerMinutePerAddress = 600.0
        /// Observations of tokens the hub does not know, per client address per minute: a phone
        /// hears a few boxes; someone walking the 2-byte space of short tokens makes thousands.
        public var unknownTokensPerMinutePerAddress = 600.0
        /// The same for a project, from every address that missed lately together (an address whose
        /// lookups all found a beacon is not held to it): a walk spread over many addresses brakes
        /// here. 65,536 short tokens at 3,000 a minute take 11 minutes on average to hit one.
        public var unknownTokensPerMinutePerProject = 3_000.0
    }

    /// Open connections and event streams (`ConnectionGuard`, `StreamQuota`).
    public struct Connections: Sendable, Equatable {
        /// Open connections in all and per client address (`connections`, `connectionsPerAddress`);
        /// past them a new connection is closed at once (so descriptors never run out: systemd's
        /// unit gives the hub 65,536).
        public var total = 20_000
        public var perAddress = 2_000
        /// Open event streams (attachment watches, show followers) per client address and per key.
        public var watchesPerAddress = 1_000
        public var watchesPerKey = 20_000
        /// A new connection must send a complete request head within this (a slow-loris client
        /// sends one a byte at a time) ...
        public var headerTimeoutSeconds = 10.0
        /// ... and a connection with no request in progress is closed after this (nginx's
        /// keepalive_timeout). An open event stream is a request in progress: it stays.
        public var idleTimeoutSeconds = 75.0
    }

    /// Field check results (`POST /v1beta1/fieldchecks`) per project, from all its keys together:
    /// the public key that sends them is in every audience URL, and each one is a row written.
    public struct FieldChecks: Sendable, Equatable {
        /// Results taken a minute (`fieldChecksPerMinutePerProject`); a room of 500 phones checking
        /// at once fits in the burst (the same figure).
        public var perMinutePerProject = 600.0
        /// Results kept (`fieldChecksKeptPerProject`): past it, each new one deletes the oldest, so
        /// a public key cannot fill the disk. Applies with the limits off too.
        public var keptPerProject = 10_000
    }

    /// The listener pages' reach reports (`POST /v1/reach`) per project, from all its keys together:
    /// every audience page sends them with the public key, and each one is a row written.
    public struct Reach: Sendable, Equatable {
        /// Reports taken a minute (`reachReportsPerMinutePerProject`): a visit reports when it
        /// joins and when what it heard changes, so a room of 1,000 phones arriving at a talk's
        /// start fits in the burst (the same figure).
        public var perMinutePerProject = 3_000.0
        /// Days kept (`reachDaysKept`): older days' rows are deleted, each hour and at start.
        /// Applies with the limits off too.
        public var daysKept = 30
    }
}

extension HubLimits {
    /// What a setting of the config file holds, and where it goes.
    enum Setting {
        /// true or false.
        case flag(WritableKeyPath<HubLimits, Bool>)
        /// A positive number.
        case number(WritableKeyPath<HubLimits, Double>)
        /// A whole number from 1 to 10,000,000, read as a number (so 1.5 or 1e20 is named).
        case count(WritableKeyPath<HubLimits, Int>)
        /// A whole number of bits, 0 to 32.
        case bits(WritableKeyPath<HubLimits, Int>)
    }

    /// Every setting of the config file's `limits`, by the name the file and docs/venue-operator.md
    /// give it, in the order they are read and checked.
    static var settings: KeyValuePairs<String, Setting> {
        [
            "enabled": .flag(\.enabled),
            "requestsPerSecondPerAddress": .number(\.rates.perAddress.perSecond),
            "burstPerAddress": .number(\.rates.perAddress.burst),
            "requestsPerSecondPerKey": .number(\.rates.perKey.perSecond),
            "burstPerKey": .number(\.rates.perKey.burst),
            "presenterRequestsPerSecondPerAddress": .number(\.rates.presenterPerAddress.perSecond),
            "presenterBurstPerAddress": .number(\.rates.presenterPerAddress.burst),
            "audienceRequestsPerSecondPerAddress": .number(\.rates.audiencePerAddress.perSecond),
            "audienceBurstPerAddress": .number(\.rates.audiencePerAddress.burst),
            "phoneRequestsPerSecond": .number(\.rates.perPhone.perSecond),
            "phoneBurst": .number(\.rates.perPhone.burst),
            "keyLookupsPerSecondPerAddress": .number(\.guessing.keyLookupsPerSecondPerAddress),
            "failedCodesPerMinutePerAddress": .number(\.guessing.failedCodesPerMinutePerAddress),
            "failedCodesPerMinute": .number(\.guessing.failedCodesPerMinute),
            "phoneIdWorkBits": .bits(\.guessing.phoneIdWorkBits),
            "phoneIdsPerMinutePerAddress": .number(\.guessing.phoneIdsPerMinutePerAddress),
            "heardPassesPerMinutePerAddress": .number(\.guessing.heardPassesPerMinutePerAddress),
            "watchesPerAddress": .count(\.connections.watchesPerAddress),
            "watchesPerKey": .count(\.connections.watchesPerKey),
            "connections": .count(\.connections.total),
            "connectionsPerAddress": .count(\.connections.perAddress),
            "headerTimeoutSeconds": .number(\.connections.headerTimeoutSeconds),
            "idleTimeoutSeconds": .number(\.connections.idleTimeoutSeconds),
            "unknownTokensPerMinutePerAddress": .number(\.guessing.unknownTokensPerMinutePerAddress),
            "unknownTokensPerMinutePerProject": .number(\.guessing.unknownTokensPerMinutePerProject),
            "fieldChecksPerMinutePerProject": .number(\.fieldChecks.perMinutePerProject),
            "fieldChecksKeptPerProject": .count(\.fieldChecks.keptPerProject),
            "reachReportsPerMinutePerProject": .number(\.reach.perMinutePerProject),
            "reachDaysKept": .count(\.reach.daysKept),
        ]
    }
}

/// A limit setting that makes no sense, in words.
public struct HubLimitsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
