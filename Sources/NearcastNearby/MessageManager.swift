import NearcastCore

/// Nearcast's Nearby-style API: publications and subscriptions with strategies, a permission
/// that gates everything, error handlers for the platform's problems, and a debug switch.
///
/// The manager owns the pure ``TokenScheduler``; whoever drives the hardware (the daemon) calls
/// ``tick(at:count:perform:)`` once per audio period, feeds heard tokens in with
/// ``heard(_:on:at:)`` or ``heard(report:at:)``, and reports problems with
/// ``report(_:present:)``. Single-threaded: use it from the daemon's loop.
///
/// ```swift
/// let manager = MessageManager(configuration: config, clock: clock, cipher: OpenSSLAES128(), seed: entropy)
/// manager.onBluetoothPowerError = { off in print(off ? "bluetooth is off" : "bluetooth is back") }
/// let publication = try manager.publish(.direct(token), strategy: Strategy(mediums: .ble))
/// let subscription = try manager.subscribe(onFound: { print("found \($0)") }, onLost: { print("lost \($0)") })
/// ```
public final class MessageManager {
    /// The most subscriptions at once.
    public static let maximumSubscriptions = 8

    /// Consent: nothing is broadcast or reported while it is not granted.
    public let permission: Permission
    /// Log every scheduling decision (Nearby's `setDebugLoggingEnabled`).
    public var debugLogging = false
    /// Called with true when the microphone cannot be opened for lack of permission, false when it recovers.
    public var onMicrophonePermissionError: ((Bool) -> Void)?
    /// Called with true when Bluetooth is refused for lack of permission, false when it recovers.
    public var onBluetoothPermissionError: ((Bool) -> Void)?
    /// Called with true when Bluetooth is powered off or blocked, false when it is back.
    public var onBluetoothPowerError: ((Bool) -> Void)?
    /// Called on every change of any problem (the three above included), with the problem and
    /// whether it is now present: how a program hears of the device states Nearby had no
    /// handler for (a missing sound card, underruns, no adapter).
    public var onProblem: ((MediumProblem, Bool) -> Void)?
    /// Ticks without hearing a token before a subscription reports it lost.
    public let lostAfter: Int64

    private(set) var scheduler: TokenScheduler
    private let cipher: any BlockCipher128
    private let log: (String) -> Void
    /// The EID publications' keys, by slot index (AES runs outside the tick).
    private var eidSources: [Int: (key: [UInt8], exponent: Int)] = [:]
    /// Live subscriptions in the order they were made (identifiers rising): walked by index on
    /// every tick, so the tick allocates nothing.
    private var subscriptions: [(identifier: Int, subscription: Unowned<Subscription>)] = []
    private var nextSubscription = 0
    private var problems: Set<MediumProblem> = []
    /// Content publications (and the hub beacon, whose type is nil), oldest first, and the EID
    /// slot they share.
    private var contentEntries: [(identifier: Int, namespacedType: String?, bytes: [UInt8], strategy: Strategy)] = []
    private var nextContent = 0
    private var contentSlot: PublicationSlot?

    /// The identity content publications broadcast (set by the program once it has one; a hub
    /// client derives it when it registers the box). Set it before publishing content.
    public var hubIdentity: HubIdentity?

    /// The content published now, oldest first: what a hub client keeps attached on the hub.
    public var contents: [(namespacedType: String, bytes: [UInt8])] {
        contentEntries.compactMap { entry in entry.namespacedType.map { ($0, entry.bytes) } }
    }
    /// Rises on every change to ``contents``: a hub client syncs when it moves.
    public private(set) var contentRevision = 0

    /// A manager with no publications. `lostAfterSeconds` is how long a subscription waits
    /// without hearing a token before reporting it lost (Nearby used a few seconds to a minute;
    /// 10 s suits a burst a second).
    public init(configuration: SchedulerConfiguration, clock: BeaconClock, cipher: any BlockCipher128,
                seed: UInt64, consentGranted: Bool = true, lostAfterSeconds: Double = 10,
                log: @escaping (String) -> Void = { _ in }) {
        self.scheduler = TokenScheduler(configuration: configuration, clock: clock, seed: seed,
                                        broadcastingAllowed: consentGranted)
        self.cipher = cipher
        self.log = log
        self.lostAfter = Int64(lostAfterSeconds * Double(configuration.ticksPerSecond))
        self.permission = Permission(granted: consentGranted)
        permission.apply = { [unowned self] granted in self.permissionChanged(granted) }
    }

    /// The scheduler's view of things (for status output).
    public var schedule: TokenScheduler { scheduler }

    /// The problems reported and not yet cleared.
    public var currentProblems: Set<MediumProblem> { problems }

    // MARK: Publishing

    /// Starts broadcasting `message`; it stays on air while the returned object lives.
    public func publish(_ message: Message, strategy: Strategy = .default, at now: Int64 = 0) throws(NearbyError) -> Publication {
        guard !strategy.mediums.isEmpty, strategy.mode.contains(.broadcast) else { throw .emptyStrategy(strategy) }
        if case .content(let namespacedType, let bytes) = message {
            return try publishContent(message, namespacedType: namespacedType, bytes: bytes, strategy: strategy, at: now)
        }
        if case .hubBeacon = message {
            return try publishOnHubIdentity(message, namespacedType: nil, bytes: [], strategy: strategy, at: now)
        }
        let slot: PublicationSlot?
        switch message {
        case .content, .hubBeacon:
            slot = nil   // published above
        case .direct(let token):
            slot = scheduler.add(direct: token, strategy: strategy, at: now)
        case .eid(let key, let exponent):
            guard key.count == 16 else { throw .badMessage("an identity key is 16 bytes, got \(key.count)") }
            guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
                throw .badMessage("EID rotation exponent \(exponent): use 0 to 15")
            }
            slot = try addEID(key: key, exponent: exponent, strategy: strategy, at: now)
        }
        guard let slot else { throw .tooManyPublications(limit: SchedulerConfiguration.maximumPublications) }
        debug("publish \(message) with \(strategy) as \(slot)")
        return Publication(message: message, strategy: strategy, slot: slot, manager: self)
    }

    private func addEID(key: [UInt8], exponent: Int, strategy: Strategy, at now: Int64) throws(NearbyError) -> PublicationSlot? {
        let time = scheduler.beaconTime(at: now)
        let epoch = EphemeralIdentifier.epochStart(time: time, exponent: exponent)
        let token = try eid(key: key, exponent: exponent, epochStart: epoch)
        let slot = scheduler.add(eid: token, exponent: exponent, epochStart: epoch, strategy: strategy, at: now)
        if let slot { eidSources[slot.index] = (key, exponent) }
        return slot
    }

    /// Content shares one EID slot, made with the first content publication; its mediums are
    /// the union of every content publication's.
    private func publishContent(_ message: Message, namespacedType: String, bytes: [UInt8], strategy: Strategy,
                                at now: Int64) throws(NearbyError) -> Publication {
        let parts = namespacedType.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .badMessage("namespaced type '\(namespacedType)': write NAMESPACE/TYPE, as in demo/slide")
        }
        guard bytes.count <= Message.maximumContentBytes else {
            throw .badMessage("content of \(bytes.count) bytes: a message holds at most \(Message.maximumContentBytes) (100 KiB)")
        }
        return try publishOnHubIdentity(message, namespacedType: namespacedType, bytes: bytes, strategy: strategy, at: now)
    }

    /// Content and the hub beacon (`namespacedType` nil) go out on the hub identity's EID.
    private func publishOnHubIdentity(_ message: Message, namespacedType: String?, bytes: [UInt8], strategy: Strategy,
                                      at now: Int64) throws(NearbyError) -> Publication {
        guard let identity = hubIdentity else { throw .noHubIdentity }
        let slot: PublicationSlot
        if let shared = contentSlot {
            slot = shared
        } else {
            guard let made = try addEID(key: identity.identityKey, exponent: identity.exponent, strategy: strategy, at: now) else {
                throw .tooManyPublications(limit: SchedulerConfiguration.maximumPublications)
            }
            slot = made
            contentSlot = made
        }
        let identifier = nextContent
        nextContent += 1
        contentEntries.append((identifier, namespacedType, bytes, strategy))
        contentRevision += 1
        updateContentStrategy()
        debug("publish \(message) on the hub identity's EID (\(slot))")
        return Publication(message: message, strategy: strategy, slot: slot, manager: self, contentIdentifier: identifier)
    }

    /// The shared EID goes out on the union of the content publications' mediums, in the union
    /// of their modes (a box switched to scan only stops it like any other publication).
    private func updateContentStrategy() {
        guard let slot = contentSlot else { return }
        var mediums: DiscoveryMediums = []
        var mode: DiscoveryMode = []
        for entry in contentEntries {
            mediums.formUnion(entry.strategy.mediums)
            mode.formUnion(entry.strategy.mode)
        }
        scheduler.setStrategy(Strategy(mediums: mediums, mode: mode), for: slot)
    }

    func remove(_ publication: Publication) {
        if let identifier = publication.contentIdentifier {
            guard let index = contentEntries.firstIndex(where: { $0.identifier == identifier }) else { return }
            contentEntries.remove(at: index)
            contentRevision += 1
            if contentEntries.isEmpty, let slot = contentSlot {
                _ = scheduler.remove(slot)
                eidSources[slot.index] = nil
                contentSlot = nil
            } else {
                updateContentStrategy()
            }
            debug("unpublish content \(identifier)")
            return
        }
        guard scheduler.remove(publication.slot) else { return }
        eidSources[publication.slot.index] = nil
        debug("unpublish \(publication.slot)")
    }

    /// Changes how a publication is sent (the console's `strategy`); takes effect at the next tick.
    public func setStrategy(_ strategy: Strategy, for publication: Publication) {
        if let identifier = publication.contentIdentifier,
           let index = contentEntries.firstIndex(where: { $0.identifier == identifier }) {
            // The shared EID goes out on the union of every content publication's mediums.
            contentEntries[index].strategy = strategy
            publication.strategy = strategy
            updateContentStrategy()
            return
        }
        scheduler.setStrategy(strategy, for: publication.slot)
        publication.strategy = strategy
        debug("\(publication.slot) now \(strategy)")
    }

    func isLive(_ publication: Publication) -> Bool {
        if let identifier = publication.contentIdentifier {
            return contentEntries.contains { $0.identifier == identifier }
        }
        return scheduler.status(of: publication.slot) != nil
    }

    // MARK: Subscribing

    /// Starts listening on the strategy's mediums; found and lost are called from ``heard(_:on:at:)``
    /// and ``tick(at:count:perform:)``.
    public func subscribe(strategy: Strategy = .default, onFound: @escaping (FoundMessage) -> Void,
                          onLost: @escaping (FoundMessage) -> Void) throws(NearbyError) -> Subscription {
        guard !strategy.mediums.isEmpty, strategy.mode.contains(.scan) else { throw .emptyStrategy(strategy) }
        guard subscriptions.count < Self.maximumSubscriptions else {
            throw .tooManySubscriptions(limit: Self.maximumSubscriptions)
        }
        let identifier = nextSubscription
        nextSubscription += 1
        let subscription = Subscription(strategy: strategy, lostAfter: lostAfter, identifier: identifier,
                                        manager: self, onFound: onFound, onLost: onLost)
        subscriptions.reserveCapacity(Self.maximumSubscriptions)
        subscriptions.append((identifier, Unowned(subscription)))
        debug("subscribe \(identifier) with \(strategy)")
        return subscription
    }

    func remove(_ identifier: Int) {
        // By identifier: this runs from the subscription's deinit, when it can no longer be read.
        guard let index = subscriptions.firstIndex(where: { $0.identifier == identifier }) else { return }
        subscriptions.remove(at: index)
        debug("unsubscribe \(identifier)")
    }

    /// Whether any subscription listens on `medium` (the daemon opens the microphone or the
    /// scanner only then).
    public func isScanning(on medium: DiscoveryMediums) -> Bool {
        permission.isGranted && subscriptions.contains { $0.subscription.value.strategy.scans(on: medium) }
    }

    /// A token heard on `medium` at tick `time` (a decoded burst, a parsed advertisement).
    public func heard(_ token: Token, on medium: DiscoveryMediums, at time: Int64) {
        guard permission.isGranted else { return }
        forEachSubscription { subscription in
            guard subscription.strategy.scans(on: medium) else { return }
            subscription.tracker.observe(token, on: medium, at: time) { event in deliver(event, to: subscription) }
        }
    }

    /// An HCI LE advertising report event: every Eddystone EID or Nearcast UID frame in it is
    /// heard on BLE. A malformed event is an error naming what is wrong, and changes nothing.
    public func heard(report event: [UInt8], at time: Int64) throws(HCIEventError) {
        for report in try LEAdvertisingReports.parse(event: event) {
            if let data = report.data, let frame = EddystoneFrame.token(in: data) {
                heard(frame.token, on: .ble, at: time)
            }
        }
    }

    private func deliver(_ event: SightingTracker.Event, to subscription: Subscription) {
        switch event {
        case .found(let token, let medium):
            debug("found \(token) over \(medium)")
            subscription.onFound(FoundMessage(token: token, medium: medium))
        case .lost(let token):
            debug("lost \(token)")
            subscription.onLost(FoundMessage(token: token, medium: []))
        }
    }

    // MARK: Driving

    /// Runs the scheduler for the `count` ticks starting at `start` and hands each action to
    /// `perform`; EID requests are answered here and lost tokens reported.
    public func tick(at start: Int64, count: Int, perform: (ScheduleAction) -> Void) {
        scheduler.tick(at: start, count: count)
        let actions = scheduler.actions
        for index in 0..<actions.count {
            let action = actions[index]
            if case .tokenNeeded(let slot, let epoch) = action {
                provideEID(for: slot, epochStart: epoch)
                continue
            }
            if debugLogging { debug(Self.describe(action)) }
            perform(action)
        }
        let end = start + Int64(count)
        forEachSubscription { subscription in
            subscription.tracker.expire(at: end) { event in deliver(event, to: subscription) }
        }
    }

    /// Reports that a platform problem appeared (`present`) or went away; the matching error
    /// handler, then ``onProblem``, runs on each change. Reporting what is already known does
    /// nothing, so a driver's state can be reported every period.
    public func report(_ problem: MediumProblem, present: Bool) {
        guard present != problems.contains(problem) else { return }
        if present { problems.insert(problem) } else { problems.remove(problem) }
        debug("\(problem): \(present ? "yes" : "cleared")")
        switch problem {
        case .microphonePermission: onMicrophonePermissionError?(present)
        case .bluetoothPermission: onBluetoothPermissionError?(present)
        case .bluetoothPower: onBluetoothPowerError?(present)
        default: break
        }
        onProblem?(problem, present)
    }

    // MARK: Helpers

    /// Calls `body` with each live subscription, oldest first. A handler may cancel
    /// subscriptions (its own included) on the way: the walk goes on from the next identifier.
    private func forEachSubscription(_ body: (Subscription) -> Void) {
        var index = 0
        while index < subscriptions.count {
            let entry = subscriptions[index]
            body(entry.subscription.value)
            // The next identifier up (an index walk: the generic firstIndex allocates in debug builds).
            var next = 0
            while next < subscriptions.count && subscriptions[next].identifier <= entry.identifier { next += 1 }
            index = next
        }
    }

    private func permissionChanged(_ granted: Bool) {
        scheduler.setBroadcastingAllowed(granted)
        debug("permission \(granted ? "granted" : "denied")")
        if !granted {
            // Nothing heard is reported while consent is withdrawn: forget what was present.
            forEachSubscription { subscription in
                subscription.tracker.removeAll { event in deliver(event, to: subscription) }
            }
        }
    }

    private func provideEID(for slot: PublicationSlot, epochStart: UInt32) {
        guard let source = eidSources[slot.index] else { return }
        do {
            let token = try eid(key: source.key, exponent: source.exponent, epochStart: epochStart)
            scheduler.provide(token, for: slot, epochStart: epochStart)
        } catch {
            // Left unanswered, the scheduler takes the old EID off the air at its switch moment.
            log("error: \(slot): \(error)")
        }
    }

    private func eid(key: [UInt8], exponent: Int, epochStart: UInt32) throws(NearbyError) -> Token {
        do {
            return try EphemeralIdentifier.compute(identityKey: key, exponent: exponent, time: epochStart, cipher: cipher)
        } catch {
            throw .cipherFailed("\(error)")
        }
    }

    private func debug(_ line: @autoclosure () -> String) {
        if debugLogging { log("debug: \(line())") }
    }

    /// One line for an action, as debug logging prints it.
    public static func describe(_ action: ScheduleAction) -> String {
        switch action {
        case .audioBurst(let slot, let token, let at): return "tick \(at): audio burst \(token) for \(slot)"
        case .advertise(let set, let slot, let token, let address, let at):
            return "tick \(at): advertise \(token) for \(slot) on set \(set) from \(address)"
        case .stopAdvertising(let set, let at): return "tick \(at): stop advertising set \(set)"
        case .tokenNeeded(let slot, let epoch): return "EID for \(slot) at epoch \(epoch) needed"
        case .tokenChanged(let slot, let token, let at): return "tick \(at): \(slot) switched to \(token)"
        }
    }
}

/// An unowned reference in a collection: subscriptions end when their owner drops them.
struct Unowned<Object: AnyObject> {
    unowned let value: Object
    init(_ value: Object) { self.value = value }
}

extension MessageManager: PublicationOwner, SubscriptionOwner {
    func currentToken(of slot: PublicationSlot) -> Token? { scheduler.status(of: slot)?.token }
}
