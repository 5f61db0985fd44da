/// What the hub allows one client address and one key before it refuses (429 with Retry-After,
/// or a closed connection), set in the config file's `limits` and off with `serve --limits off`.
///
/// The defaults assume a venue: hundreds of phones behind one Wi-Fi NAT share an address, each
/// resolving what it hears every couple of seconds and holding two event streams, so the
/// per-address figures are high, and each class of caller (keyless, the audience's keys, the
/// presenter's secret key: `CallerClass`) has its own bucket per address; the per-key figures
/// bound what anyone holding the public key (which is in every audience URL) can take from the
/// hub as a whole.
public struct HubLimits: Sendable, Equatable {
    /// False: no limit at all (a benchmark on loopback).
    public var enabled = true
    /// Requests per second from one client address, and how many may come at once.
    public var requestsPerSecondPerAddress = 200.0
    public var burstPerAddress = 400.0
    /// The same for requests with the public key or a pass: a venue's NAT carries a thousand
    /// phones each resolving every couple of seconds, following, reacting, earning an id.
    public var audienceRequestsPerSecondPerAddress = 2_000.0
    public var audienceBurstPerAddress = 4_000.0
    /// The same for requests with the project's secret key (the presenter's page, the box): a
    /// bucket of their own per address, which the audience's and keyless traffic cannot spend.
    public var presenterRequestsPerSecondPerAddress = 50.0
    public var presenterBurstPerAddress = 200.0
    /// The same for each phone with an id the hub gave (`X-Nearcast-Phone` or `?phone=`), in a
    /// bucket of its own whatever its address: a phone resolves every couple of seconds, follows,
    /// reacts and loads a page image per turn, far inside this; a phone flooding is refused alone.
    public var phoneRequestsPerSecond = 10.0
    public var phoneBurst = 40.0
    /// Keys not read in the last second looked up per address per second (twice that at once):
    /// a flood of made-up keys is refused as keyless instead of reading the database.
    public var keyLookupsPerSecondPerAddress = 20.0
    /// Codes typed (or opened as /j/CODE) that match no screen, per client address and for the
    /// whole hub, per minute: past either, every code is refused for a while, so guessing one of
    /// the 2^30 codes is hopeless within an event (docs/presenter.md gives the expected time).
    public var failedCodesPerMinutePerAddress = 30.0
    public var failedCodesPerMinute = 300.0
    /// The work a phone id costs: leading zero bits of SHA-256 (2^bits tries on average: 19 is
    /// 0.25 s in Chromium on the build machine's core, about a second on a phone 4 times slower).
    public var phoneIdWorkBits = 19
    /// Phone ids given per client address per minute (and at once): a venue's NAT, hundreds of
    /// phones joining at a talk's start, fits; a script inventing phones does not.
    public var phoneIdsPerMinutePerAddress = 3_000.0
    /// Requests per second with one key (public or secret) from all addresses together.
    public var requestsPerSecondPerKey = 5_000.0
    public var burstPerKey = 10_000.0
    /// Open event streams (attachment watches, show followers) per client address and per key.
    public var watchesPerAddress = 1_000
    public var watchesPerKey = 20_000
    /// Open connections in all and per client address; past them a new connection is closed at
    /// once (so descriptors never run out: systemd's unit gives the hub 65,536).
    public var connections = 20_000
    public var connectionsPerAddress = 2_000
    /// A new connection must send a complete request head within this (a slow-loris client
    /// sends one a byte at a time) ...
    public var headerTimeoutSeconds = 10.0
    /// ... and a connection with no request in progress is closed after this (nginx's
    /// keepalive_timeout). An open event stream is a request in progress: it stays.
    public var idleTimeoutSeconds = 75.0
    /// Observations of tokens the hub does not know, per client address per minute: a phone
    /// hears a few boxes; someone walking the 2-byte space of short tokens makes thousands.
    public var unknownTokensPerMinutePerAddress = 600.0
    /// The same for a project, from every address that missed lately together (an address whose
    /// lookups all found a beacon is not held to it): a walk spread over many addresses brakes
    /// here. 65,536 short tokens at 3,000 a minute take 11 minutes on average to hit one.
    public var unknownTokensPerMinutePerProject = 3_000.0
    /// Field check results (`POST /v1beta1/fieldchecks`) per project per minute, from all its
    /// keys together: the public key that sends them is in every audience URL, and each one is
    /// a row written. A room of 500 phones checking at once fits in the burst (the same figure).
    public var fieldChecksPerMinutePerProject = 600.0
    /// Field check results kept per project: past it, each new one deletes the oldest, so a
    /// public key cannot fill the disk. Applies with the limits off too.
    public var fieldChecksKeptPerProject = 10_000

    public init() {}

    /// No limits.
    public static var off: HubLimits {
        var limits = HubLimits()
        limits.enabled = false
        return limits
    }

    /// Checks the settings, naming the first that makes no sense.
    public func validate() throws(HubLimitsError) {
        let positive: [(String, Double)] = [
            ("requestsPerSecondPerAddress", requestsPerSecondPerAddress), ("burstPerAddress", burstPerAddress),
            ("requestsPerSecondPerKey", requestsPerSecondPerKey), ("burstPerKey", burstPerKey),
            ("presenterRequestsPerSecondPerAddress", presenterRequestsPerSecondPerAddress),
            ("audienceRequestsPerSecondPerAddress", audienceRequestsPerSecondPerAddress), ("audienceBurstPerAddress", audienceBurstPerAddress),
            ("presenterBurstPerAddress", presenterBurstPerAddress),
            ("phoneRequestsPerSecond", phoneRequestsPerSecond), ("phoneBurst", phoneBurst), ("keyLookupsPerSecondPerAddress", keyLookupsPerSecondPerAddress),
            ("failedCodesPerMinutePerAddress", failedCodesPerMinutePerAddress), ("failedCodesPerMinute", failedCodesPerMinute),
            ("phoneIdsPerMinutePerAddress", phoneIdsPerMinutePerAddress),
            ("watchesPerAddress", Double(watchesPerAddress)), ("watchesPerKey", Double(watchesPerKey)),
            ("connections", Double(connections)), ("connectionsPerAddress", Double(connectionsPerAddress)),
            ("headerTimeoutSeconds", headerTimeoutSeconds), ("idleTimeoutSeconds", idleTimeoutSeconds),
            ("unknownTokensPerMinutePerAddress", unknownTokensPerMinutePerAddress),
            ("unknownTokensPerMinutePerProject", unknownTokensPerMinutePerProject),
            ("fieldChecksPerMinutePerProject", fieldChecksPerMinutePerProject),
            ("fieldChecksKeptPerProject", Double(fieldChecksKeptPerProject)),
        ]
        for (name, value) in positive where !(value > 0 && value.isFinite) {
            throw HubLimitsError("limits.\(name) must be a positive number, not \(value)")
        }
        guard (0...32).contains(phoneIdWorkBits) else { throw HubLimitsError("limits.phoneIdWorkBits must be 0 to 32, not \(phoneIdWorkBits)") }
        if burstPerAddress < 1 || burstPerKey < 1 { throw HubLimitsError("limits.burstPerAddress and burstPerKey must be at least 1") }
    }
}

/// A limit setting that makes no sense, in words.
public struct HubLimitsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
