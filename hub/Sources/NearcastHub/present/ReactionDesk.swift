/// Where accepted reactions wait for their batch, and the rate limits that keep one phone (or a
/// flood on one beacon) from drowning the presenter.
///
/// Limits are token buckets: per phone (its id's identity, `PhoneIDs.Phone.identity`: one
/// challenge, one phone, however its id is spelt or whichever proof it names; the phones of a venue
/// behind one address are each limited on their own) at its address, so an id stolen and spent
/// from elsewhere does not lock its owner out (it earns the thief what an id of its own would),
/// and per beacon (what all phones together may send). They are the venue's: with several
/// instances each allows its share (`VenueShare`), so one id's reactions spread over them are
/// one phone's. The presenter's drawing is fair by identity alone.
actor ReactionDesk {
    /// The limits (docs/presenter.md lists them, "Proof of presence").
    struct Limits: Sendable {
        var perPhonePerSecond = 4.0
        var perPhoneBurst = 12.0
        var perBeaconPerSecond = 2_000.0
        var perBeaconBurst = 2_000.0
    }

    /// One accepted reaction waiting for its batch.
    struct Waiting: Sendable {
        var value: String
        var timeMs: Int64
        var phone: String = ""
        /// The show's slide when the reaction was accepted: what the speaker's figures count by.
        var slide: ReactionTally.Slide
        /// The key the phone gave the tap (`Idempotency-Key`), if it gave one.
        var tap: String? = nil

        /// As the storage counts it: with its receipt when the phone gave the tap a key.
        var batchReaction: ReactionBatch.Reaction {
            ReactionBatch.Reaction(value: value, timeMs: timeMs, slide: slide, receipt: tap.map { .init(phone: phone, tap: $0) })
        }
    }

    /// Reactions drawn on the presenter's screen per batch (150 ms): about 160 a second, what the
    /// screen animates smoothly; the counts take every reaction whatever is drawn.
    static let drawnPerBatch = 24

    /// A token bucket: `tokens` refill at `rate` a second up to `burst`.
    struct Bucket: Sendable {
        var tokens: Double
        var lastMs: Int64

        /// Takes one token; nil when taken, else the seconds until one is there.
        mutating func take(rate: Double, burst: Double, nowMs: Int64) -> Double? {
            tokens = min(burst, tokens + Double(max(0, nowMs - lastMs)) / 1000 * rate)
            lastMs = nowMs
            guard tokens >= 1 else { return (1 - tokens) / rate }
            tokens -= 1
            return nil
        }
    }

    let limits: Limits
    /// How many instances share the limits.
    let venue: VenueShare
    private var phones: [String: Bucket] = [:]
    private var beacons: [BeaconRef: Bucket] = [:]
    /// The phones (identities) that reacted to each show lately, when last: what a fair share of
    /// the beacon's rate divides by.
    private var active: [BeaconRef: [String: Int64]] = [:]
    /// How long a phone counts as reacting after its last reaction.
    static let activeMilliseconds: Int64 = 10_000
    /// What the phones reacting share of the beacon's rate, each an equal part.
    static let fairShare = 0.9
    private var waiting: [BeaconRef: [Waiting]] = [:]
    /// When each phone last had a reaction drawn, by show: the fair share's memory.
    private var lastDrawnMs: [String: Int64] = [:]

    init(limits: Limits = Limits(), venue: VenueShare = VenueShare()) {
        self.limits = limits
        self.venue = venue
    }

    /// The batch now filling: `takeBatch` closes it and starts the next.
    private var filling: UInt64 = 0
    /// Whether each recent batch's reactions for each show were counted (`finished`), and the
    /// requests waiting to hear it.
    private var outcomes: [BatchShow: Bool] = [:]
    private var waiters: [BatchShow: [CheckedContinuation<Bool, Never>]] = [:]
    /// Outcomes are kept for this many batches (a minute); a request that asks later is told its
    /// reaction is not known to be counted, rather than waiting for ever.
    static let outcomesKeptBatches: UInt64 = 400
    private var forgottenBelow: UInt64 = 0
    /// The writer stopped (the hub shuts down): nothing more will be counted.
    private var stopped = false

    /// One show's reactions in one batch.
    struct BatchShow: Hashable, Sendable {
        var batch: UInt64
        var show: BeaconRef
    }

    /// Admits one reaction, as `admit` does, and names the batch it waits in: a request answers
    /// 202 only once `counted` says that batch was written (a reaction acknowledged is never
    /// lost with its instance).
    func take(_ value: String, to key: BeaconRef, on slide: ReactionTally.Slide, phone: String, tap: String? = nil, address: String? = nil,
              nowMs: Int64) -> (retryAfter: Int?, batch: BatchShow) {
        (admit(value, to: key, on: slide, phone: phone, tap: tap, address: address, nowMs: nowMs), BatchShow(batch: filling, show: key))
    }

    /// Whether a writer (`PresentService`) sends the batches: without one (router tests, the
    /// fuzzer: nothing is counted in the background) a reaction does not wait for its batch.
    private var hasWriter = false

    /// The batches will be written, and each request waits for its own.
    func writerStarted() { hasWriter = true }

    /// The last batch was written: a request still waiting (or asking later) is not acknowledged.
    func writerStopped() {
        stopped = true
        for waiter in waiters.values.joined() { waiter.resume(returning: false) }
        waiters = [:]
    }

    /// Whether `batch`'s reactions were counted in the database: waits for its write (at most a
    /// batch's interval and the write).
    func counted(_ batch: BatchShow) async -> Bool {
        guard hasWriter else { return true }
        if let outcome = outcomes[batch] { return outcome }
        guard !stopped, batch.batch >= forgottenBelow else { return false }
        return await withCheckedContinuation { waiters[batch, default: []].append($0) }
    }

    /// `batch`'s reactions for its show were written (or not): the requests waiting are answered.
    func finished(_ batch: BatchShow, written: Bool) {
        outcomes[batch] = written
        for waiter in waiters.removeValue(forKey: batch) ?? [] { waiter.resume(returning: written) }
        // A request that asks after its batch was written reads the outcome, for a minute.
        if batch.batch >= forgottenBelow + 2 * Self.outcomesKeptBatches {
            forgottenBelow = batch.batch - Self.outcomesKeptBatches
            outcomes = outcomes.filter { $0.key.batch >= forgottenBelow }
        }
    }

    /// Admits one reaction from `phone` (an identity) at `address` to the show, on `slide`, or
    /// says how long to wait (seconds, rounded up: Retry-After takes whole seconds). A tap sent
    /// again with its key spends the phone's rate again: the storage, not the desk, knows whether
    /// it was counted (`ReactionBatch`).
    func admit(_ value: String, to key: BeaconRef, on slide: ReactionTally.Slide, phone: String, tap: String? = nil, address: String? = nil,
               nowMs: Int64) -> Int? {
        let phoneKey = key.project + "\n" + phone + "\n" + (address ?? "")
        // This instance's share of the venue's limits (a burst of at least one).
        let beaconRate = venue.share(of: limits.perBeaconPerSecond)
        let beaconBurst = max(1, venue.share(of: limits.perBeaconBurst))
        // Each phone reacting lately gets at most its fair share of the beacon's: 500 ids at their
        // own rate (4 a second) would otherwise spend a beacon's 2,000 and leave every other phone
        // a 429. With n phones reacting, each may sustain 9/10 of the beacon's rate / n: together
        // they cannot spend the beacon's bucket, and the tenth left over fills it for phones whose
        // taps come between (whoever comes first takes a shared bucket's last token).
        active[key, default: [:]][phone] = nowMs
        let reacting = Double(max(1, active[key]?.count ?? 1)) / Self.fairShare
        let phoneRate = min(venue.share(of: limits.perPhonePerSecond), beaconRate / reacting)
        // The burst stays the phone's own: a room of a thousand phones each tapping a few hearts
        // at once is what the beacon's burst is for; the fair share bounds what each sustains.
        let phoneBurst = max(1, venue.share(of: limits.perPhoneBurst))
        var phoneBucket = phones[phoneKey] ?? Bucket(tokens: phoneBurst, lastMs: nowMs)
        var beaconBucket = beacons[key] ?? Bucket(tokens: beaconBurst, lastMs: nowMs)
        // Look before taking: a refused reaction costs neither bucket.
        var phoneProbe = phoneBucket, beaconProbe = beaconBucket
        let phoneWait = phoneProbe.take(rate: phoneRate, burst: phoneBurst, nowMs: nowMs)
        let beaconWait = beaconProbe.take(rate: beaconRate, burst: beaconBurst, nowMs: nowMs)
        if let wait = [phoneWait, beaconWait].compactMap({ $0 }).max() {
            return max(1, Int(wait.rounded(.up)))
        }
        _ = phoneBucket.take(rate: phoneRate, burst: phoneBurst, nowMs: nowMs)
        _ = beaconBucket.take(rate: beaconRate, burst: beaconBurst, nowMs: nowMs)
        phones[phoneKey] = phoneBucket
        beacons[key] = beaconBucket
        waiting[key, default: []].append(Waiting(value: value, timeMs: nowMs, phone: phone, slide: slide, tap: tap))
        return nil
    }

    /// Everything waiting, by show; the desk is empty after. `batch` is the batch it closes
    /// (tell `finished` how each show's write went).
    func takeWaiting() -> [BeaconRef: [Waiting]] { takeBatch().waiting }

    func takeBatch() -> (waiting: [BeaconRef: [Waiting]], batch: UInt64) {
        defer {
            waiting = [:]
            filling += 1
        }
        return (waiting, filling)
    }

    /// What of `waiting` the presenter's screen draws: at most `limit`, one a phone, the phones
    /// whose reactions were drawn longest ago (or never) first. A machine that holds a thousand
    /// ids gets a thousand phones' share, no more, and a phone tapping now and then is drawn
    /// before ids drawn a moment ago.
    func draw(_ waiting: [Waiting], of key: BeaconRef, limit: Int = drawnPerBatch, nowMs: Int64) -> [Waiting] {
        var firstByPhone: [String: Waiting] = [:]
        for reaction in waiting where firstByPhone[reaction.phone] == nil { firstByPhone[reaction.phone] = reaction }
        let prefix = key.project + "\n" + key.beaconName + "\n"
        let chosen = firstByPhone.values.sorted { a, b in
            let (last, other) = (lastDrawnMs[prefix + a.phone] ?? .min, lastDrawnMs[prefix + b.phone] ?? .min)
            return last != other ? last < other : a.timeMs < b.timeMs
        }.prefix(limit)
        for reaction in chosen { lastDrawnMs[prefix + reaction.phone] = nowMs }
        return chosen.sorted { $0.timeMs < $1.timeMs }
    }

    /// Forgets buckets that have refilled (idle long enough), so memory follows the phones that
    /// are reacting, not every phone ever seen.
    func prune(nowMs: Int64) {
        let phoneIdleMs = Int64(limits.perPhoneBurst / limits.perPhonePerSecond * 1000)
        phones = phones.filter { nowMs - $0.value.lastMs < phoneIdleMs }
        // A phone's place in the drawing is kept for a minute: long enough to be fair.
        lastDrawnMs = lastDrawnMs.filter { nowMs - $0.value < 60_000 }
        let beaconIdleMs = Int64(limits.perBeaconBurst / limits.perBeaconPerSecond * 1000) + 1000
        beacons = beacons.filter { nowMs - $0.value.lastMs < beaconIdleMs }
        for (key, phones) in active {
            let recent = phones.filter { nowMs - $0.value < Self.activeMilliseconds }
            active[key] = recent.isEmpty ? nil : recent
        }
    }

    var trackedPhones: Int { phones.count }
}
