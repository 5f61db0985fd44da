/// Decides which token goes on which medium when: the heart of broadcasting.
///
/// Pure and allocation-free: time comes in as ticks of the audio stream (``tick(at:count:)``
/// covers one audio period), randomness from a generator the caller seeds, and what to do goes
/// out as ``ScheduleAction``s in a fixed buffer. AES stays outside: the scheduler asks for each
/// EID an epoch ahead (``ScheduleAction/tokenNeeded(_:epochStart:)``) and the caller hands it in
/// with ``provide(_:for:epochStart:)``.
///
/// - Audio: one burst per publication per ``SchedulerConfiguration/audioInterval``, round-robin
///   across the publications that broadcast on audio, never closer than the burst, its guard
///   time and the duty-cycle cap allow (the interval stretches instead).
/// - BLE: publication `i` advertises on set `i % sets`; publications sharing a set take turns
///   every ``SchedulerConfiguration/bleRotationInterval`` (legacy advertising has one set).
/// - EID: a publication switches to its next EID at a random moment early in the new epoch, on
///   both mediums in the same tick, and its BLE random address changes at that moment too.
///
/// ```swift
/// var scheduler = TokenScheduler(configuration: config, clock: BeaconClock(startingAt: saved),
///                                seed: entropy)
/// let slot = scheduler.add(direct: token, strategy: .default, at: 0)
/// scheduler.tick(at: position, count: period)
/// for index in 0..<scheduler.actions.count { perform(scheduler.actions[index]) }
/// ```
public struct TokenScheduler: Sendable {
    /// What one slot holds.
    struct Slot: Sendable {
        var generation: UInt32 = 0
        var isActive = false
        var strategy = Strategy()
        /// EID rotation exponent K, or -1 for a direct token.
        var exponent = -1
        var current: Token?
        var currentEpoch: UInt32 = 0
        /// The next epoch's EID once the caller has provided it.
        var pending: Token?
        var nextEpoch: UInt32 = 0
        /// Tick at which `pending` takes over.
        var switchAt: Int64 = .max
        var tokenRequested = false
        var address = BLEAddress(value: 0)!
        /// The token or address changed since the advertiser last heard of it.
        var bleDirty = false
    }

    /// What one advertising set shows.
    struct AdvertisingSet: Sendable {
        var onAir = -1
        var onAirGeneration: UInt32 = 0
        var nextRotationAt: Int64 = 0
    }

    /// A publication as the scheduler sees it, for status output.
    public struct PublicationStatus: Sendable, Equatable {
        public var strategy: Strategy
        /// The token on air now (nil while an EID is awaited).
        public var token: Token?
        /// EID rotation exponent, or nil for a direct token.
        public var exponent: Int?
        /// Tick of the next EID switch (nil for a direct token).
        public var nextSwitchAt: Int64?
        /// The advertising set it uses.
        public var advertisingSet: Int
        /// Its current BLE random address.
        public var address: BLEAddress
    }

    public let configuration: SchedulerConfiguration
    /// The beacon clock; tick 0 is its start.
    public let clock: BeaconClock
    /// What the last ``tick(at:count:)`` decided.
    public private(set) var actions = ScheduleActions()
    /// Whether the operator allows broadcasting (Nearby's permission, the box's consent).
    public private(set) var broadcastingAllowed: Bool

    private var slots: FixedArray<Tuple8<Slot>, Slot> = FixedArray(repeating: Slot())
    private var sets: FixedArray<Tuple8<AdvertisingSet>, AdvertisingSet> = FixedArray(repeating: AdvertisingSet())
    private var generator: SplitMix64
    private var nextAudioAt: Int64 = 0
    private var lastAudioSlot = -1

    /// A scheduler with no publications. `seed` drives the EID switch moments and the random
    /// addresses: pass fresh entropy on a box, a constant in tests.
    public init(configuration: SchedulerConfiguration, clock: BeaconClock, seed: UInt64,
                broadcastingAllowed: Bool = true) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.configuration = configuration
        self.clock = clock
        self.generator = SplitMix64(seed: seed)
        self.broadcastingAllowed = broadcastingAllowed
    }

    private var setCount: Int { min(configuration.bleAdvertisingSets, SchedulerConfiguration.maximumPublications) }

    // MARK: Time

    /// Beacon time at tick `tick` (whole seconds since the clock's start).
    public func beaconTime(at tick: Int64) -> UInt32 {
        clock.time(elapsedSeconds: Double(max(0, tick) / Int64(configuration.ticksPerSecond)))
    }

    /// The tick at which the beacon clock reads `time` (negative for times before the start).
    public func tick(ofBeaconTime time: UInt32) -> Int64 {
        (Int64(time) - Int64(clock.start)) * Int64(configuration.ticksPerSecond)
    }

    // MARK: Publications

    /// Adds a publication of a fixed token; nil when all slots are taken.
    public mutating func add(direct token: Token, strategy: Strategy, at now: Int64) -> PublicationSlot? {
        guard let index = freeSlot() else { return nil }
        var slot = freshSlot(index, strategy: strategy)
        slot.current = token
        slots[index] = slot
        return PublicationSlot(index: index, generation: slot.generation)
    }

    /// Adds a publication of rotating EIDs with exponent K, starting with `token`, the EID of the
    /// epoch that starts at beacon time `epochStart` (the epoch of ``beaconTime(at:)`` now). Nil
    /// when all slots are taken.
    public mutating func add(eid token: Token, exponent: Int, epochStart: UInt32, strategy: Strategy,
                             at now: Int64) -> PublicationSlot? {
        precondition((0...15).contains(exponent), "EID rotation exponent must be 0...15")
        guard let index = freeSlot() else { return nil }
        var slot = freshSlot(index, strategy: strategy)
        slot.exponent = exponent
        slot.current = token
        slot.currentEpoch = epochStart
        slot.nextEpoch = epochStart &+ (1 << UInt32(exponent))
        slot.switchAt = switchMoment(epochStart: slot.nextEpoch, exponent: exponent)
        slots[index] = slot
        return PublicationSlot(index: index, generation: slot.generation)
    }

    /// Removes a publication; its slot's old handle stops working. False if it was already gone.
    @discardableResult
    public mutating func remove(_ publication: PublicationSlot) -> Bool {
        guard isLive(publication) else { return false }
        slots[publication.index].isActive = false
        slots[publication.index].generation &+= 1
        return true
    }

    /// Changes a publication's strategy; it takes effect at the next tick.
    @discardableResult
    public mutating func setStrategy(_ strategy: Strategy, for publication: PublicationSlot) -> Bool {
        guard isLive(publication) else { return false }
        slots[publication.index].strategy = strategy
        slots[publication.index].bleDirty = true
        return true
    }

    /// Hands in the EID asked for by ``ScheduleAction/tokenNeeded(_:epochStart:)``. False (and
    /// ignored) when the publication is gone or the epoch is not the one awaited.
    @discardableResult
    public mutating func provide(_ token: Token, for publication: PublicationSlot, epochStart: UInt32) -> Bool {
        guard isLive(publication), slots[publication.index].exponent >= 0,
              slots[publication.index].nextEpoch == epochStart else { return false }
        slots[publication.index].pending = token
        return true
    }

    /// Allows or stops all broadcasting (consent); takes effect at the next tick.
    public mutating func setBroadcastingAllowed(_ allowed: Bool) {
        broadcastingAllowed = allowed
    }

    /// The publication's state, or nil when it is gone.
    public func status(of publication: PublicationSlot) -> PublicationStatus? {
        guard isLive(publication) else { return nil }
        let slot = slots[publication.index]
        return PublicationStatus(
            strategy: slot.strategy, token: slot.current,
            exponent: slot.exponent >= 0 ? slot.exponent : nil,
            nextSwitchAt: slot.exponent >= 0 ? slot.switchAt : nil,
            advertisingSet: publication.index % setCount, address: slot.address)
    }

    /// Live publications.
    public var publicationCount: Int {
        var count = 0
        for index in 0..<SchedulerConfiguration.maximumPublications where slots[index].isActive { count += 1 }
        return count
    }

    /// The spacing between burst starts with the current publications: the interval shared
    /// round-robin, never below ``SchedulerConfiguration/minimumBurstSpacing``.
    public var audioBurstSpacing: Int64 {
        let count = max(1, audioPublicationCount)
        return max(configuration.audioInterval / Int64(count), configuration.minimumBurstSpacing)
    }

    /// How often each audio publication really gets a burst, in ticks.
    public var effectiveAudioInterval: Int64 { audioBurstSpacing * Int64(max(1, audioPublicationCount)) }

    // MARK: The tick

    /// Decides what happens in the `count` ticks starting at `start` (one audio period) and
    /// leaves it in ``actions``. Spans should follow each other; a gap is treated as time passed.
    public mutating func tick(at start: Int64, count: Int) {
        precondition(count > 0, "a tick covers at least one tick of time")
        actions.removeAll()
        let end = start + Int64(count)
        switchTokens(start: start, end: end)
        advertise(start: start, end: end)
        scheduleAudio(start: start, end: end)
    }

    private mutating func switchTokens(start: Int64, end: Int64) {
        for index in 0..<SchedulerConfiguration.maximumPublications where slots[index].isActive && slots[index].exponent >= 0 {
            var slot = slots[index]
            let handle = PublicationSlot(index: index, generation: slot.generation)
            if slot.switchAt < end && !actions.isFull {
                if let next = slot.pending {
                    let at = max(slot.switchAt, start)
                    slot.current = next
                    slot.currentEpoch = slot.nextEpoch
                    slot.pending = nil
                    slot.nextEpoch = slot.nextEpoch &+ (1 << UInt32(slot.exponent))
                    slot.switchAt = switchMoment(epochStart: slot.nextEpoch, exponent: slot.exponent)
                    slot.tokenRequested = false
                    slot.address = .nonResolvablePrivate(using: &generator)
                    slot.bleDirty = true
                    actions.append(.tokenChanged(handle, token: next, at: at))
                } else if slot.current != nil {
                    // The caller has not handed in the new EID: an old one must not stay on air.
                    slot.current = nil
                    slot.bleDirty = true
                }
            }
            if !slot.tokenRequested && slot.pending == nil && !actions.isFull {
                actions.append(.tokenNeeded(handle, epochStart: slot.nextEpoch))
                slot.tokenRequested = true
            }
            slots[index] = slot
        }
    }

    private mutating func advertise(start: Int64, end: Int64) {
        let setCount = self.setCount
        for set in 0..<setCount {
            if actions.isFull { return }
            var state = sets[set]
            let onAirLive = state.onAir >= 0 && slots[state.onAir].generation == state.onAirGeneration
                && isBLEEligible(state.onAir)
            var choice = -1
            if onAirLive {
                let rotationDue = end > state.nextRotationAt
                let other = nextBLEEligible(onSet: set, after: state.onAir)
                if rotationDue && other >= 0 && other != state.onAir {
                    choice = other
                } else if slots[state.onAir].bleDirty {
                    choice = state.onAir
                }
            } else {
                choice = nextBLEEligible(onSet: set, after: state.onAir)
                if choice < 0 && state.onAir >= 0 {
                    actions.append(.stopAdvertising(set: set, at: start))
                    state.onAir = -1
                }
            }
            if choice >= 0, let token = slots[choice].current {
                let at = choice == state.onAir ? start : max(start, min(state.nextRotationAt, end - 1))
                let handle = PublicationSlot(index: choice, generation: slots[choice].generation)
                actions.append(.advertise(set: set, handle, token: token, address: slots[choice].address, at: at))
                if choice != state.onAir || !onAirLive {
                    state.nextRotationAt = at + configuration.bleRotationInterval
                }
                state.onAir = choice
                state.onAirGeneration = slots[choice].generation
            }
            sets[set] = state
        }
        for index in 0..<SchedulerConfiguration.maximumPublications { slots[index].bleDirty = false }
    }

    private mutating func scheduleAudio(start: Int64, end: Int64) {
        let spacing = audioBurstSpacing
        while nextAudioAt < end && !actions.isFull {
            let index = nextAudioEligible(after: lastAudioSlot)
            guard index >= 0, let token = slots[index].current else {
                nextAudioAt = end
                return
            }
            let at = max(nextAudioAt, start)
            actions.append(.audioBurst(PublicationSlot(index: index, generation: slots[index].generation),
                                       token: token, at: at))
            lastAudioSlot = index
            nextAudioAt = at + spacing
        }
    }

    // MARK: Helpers

    private func isLive(_ publication: PublicationSlot) -> Bool {
        (0..<SchedulerConfiguration.maximumPublications).contains(publication.index)
            && slots[publication.index].isActive && slots[publication.index].generation == publication.generation
    }

    private func freeSlot() -> Int? {
        for index in 0..<SchedulerConfiguration.maximumPublications where !slots[index].isActive { return index }
        return nil
    }

    private mutating func freshSlot(_ index: Int, strategy: Strategy) -> Slot {
        var slot = Slot()
        slot.generation = slots[index].generation
        slot.isActive = true
        slot.strategy = strategy
        slot.address = .nonResolvablePrivate(using: &generator)
        slot.bleDirty = true
        return slot
    }

    /// The tick at which the EID of the epoch starting at `epochStart` goes on air: a random
    /// moment in the first ``SchedulerConfiguration/eidSwitchFraction`` of the epoch.
    private mutating func switchMoment(epochStart: UInt32, exponent: Int) -> Int64 {
        let window = Int64(Double(Int64(1) << Int64(exponent)) * configuration.eidSwitchFraction
                           * Double(configuration.ticksPerSecond))
        let delay = window > 0 ? Int64(generator.next() % UInt64(window)) : 0
        return tick(ofBeaconTime: epochStart) + delay
    }

    private func isBroadcasting(_ index: Int, on medium: DiscoveryMediums) -> Bool {
        broadcastingAllowed && slots[index].isActive && slots[index].current != nil
            && slots[index].strategy.broadcasts(on: medium)
    }

    private func isBLEEligible(_ index: Int) -> Bool { isBroadcasting(index, on: .ble) }

    private var audioPublicationCount: Int {
        var count = 0
        for index in 0..<SchedulerConfiguration.maximumPublications
        where slots[index].isActive && slots[index].strategy.broadcasts(on: .audio) { count += 1 }
        return count
    }

    /// The next publication after `index` (cyclically) that broadcasts on BLE from `set`, or -1.
    private func nextBLEEligible(onSet set: Int, after index: Int) -> Int {
        let capacity = SchedulerConfiguration.maximumPublications
        for step in 1...capacity {
            let candidate = ((index + step) % capacity + capacity) % capacity
            if candidate % setCount == set && isBLEEligible(candidate) { return candidate }
        }
        return -1
    }

    /// The next publication after `index` (cyclically) that broadcasts on audio, or -1.
    private func nextAudioEligible(after index: Int) -> Int {
        let capacity = SchedulerConfiguration.maximumPublications
        for step in 1...capacity {
            let candidate = ((index + step) % capacity + capacity) % capacity
            if isBroadcasting(candidate, on: .audio) { return candidate }
        }
        return -1
    }
}
