/// Shows in memory: one per beacon, started only on an active beacon with a deck of the project
/// and a page of it; the live beacons only active EID beacons with an identity key; follower
/// counts summed over the instances that reported in the last `Show.followersFreshMs`.
extension MemoryHubData {
    func putShow(project: String, beaconName: String, deckID: String, page: Int) throws -> Show {
        _ = try beacon(project: project, beaconName: beaconName)
        guard let deck = decks[project]?[deckID]?.deck else { throw APIError(.notFound, "deck \(deckID) not found", field: "deck") }
        try Show.check(page: page, of: deckID, pages: deck.pages)
        let key = BeaconRef(project: project, beaconName: beaconName), now = clock.nowMs()
        if shows[key] != nil {
            shows[key]?.go(deckID: deckID, page: page, nowMs: now)
        } else {
            shows[key] = Show(project: project, beaconName: beaconName, deckID: deckID, page: page, nowMs: now)
        }
        return shows[key]!
    }

    func show(_ key: BeaconRef) -> Show? { shows[key] }

    func deleteShow(_ key: BeaconRef) -> Bool { shows.removeValue(forKey: key) != nil }

    /// The new counts and what the presenter is sent, nil (and nothing counted or recorded) when
    /// the show ended. Receipts are kept `ReactionBatch.receiptMilliseconds`, as in the database.
    func addReactions(_ key: BeaconRef, _ batch: ReactionBatch) -> (counts: [String: Int], drawn: [ReactionBatchJSON.Reaction])? {
        guard shows[key] != nil else { return nil }
        let now = batch.latestMs
        reactionReceipts = reactionReceipts.filter { now - $0.value < ReactionBatch.receiptMilliseconds }
        var fresh = Set<ReactionBatch.Receipt>()
        for receipt in batch.receipts where reactionReceipts[receipt] == nil {
            reactionReceipts[receipt] = now
            fresh.insert(receipt)
        }
        let (tallied, drawn) = batch.counting(fresh: fresh)
        for (value, count) in ReactionTally.totals(tallied) { shows[key]?.counts[value, default: 0] += count }
        addTallies(key, tallied)
        return (shows[key]?.counts ?? [:], drawn)
    }

    func liveBeacons() -> [Show.LiveBeacon] {
        shows.compactMap { key, show in
            guard let eid = activeBeacon(key.project, key.beaconName)?.eidRegistration, eid.identityKeyHex != nil
            else { return nil }
            return Show.LiveBeacon(project: key.project, beaconName: key.beaconName, exponent: eid.exponent,
                                        codeSalt: show.sightCode.salt, codeJoining: show.sightCode.joining,
                                        codeShare: show.sightCode.share)
        }
    }

    func setCode(_ key: BeaconRef, joining: Bool?, share: Int?, rotate: Bool) -> Bool {
        guard var show = shows[key] else { return false }
        if let joining { show.sightCode.joining = joining }
        if let share { show.sightCode.share = share }
        if Show.SightCode.needsNewSalt(joining: joining, rotate: rotate) { show.sightCode.salt = Show.newSalt() }
        shows[key] = show
        return true
    }

    /// Of any beacon ever registered: a deleted one's tombstone still names its box.
    func box(_ key: BeaconRef) -> Show.Box? {
        guard let beacon = beacons[key.project]?[key.beaconName] else { return nil }
        return Show.box(beaconName: key.beaconName, description: beacon.description, heartbeatMs: beacon.lastHeartbeat?.atMs,
                             createdMs: beacon.createdMs)
    }

    func recordFollowers(instance: String, _ counts: [BeaconRef: Int]) {
        let now = clock.nowMs()
        for (key, count) in counts { followers[instance, default: [:]][key] = FollowerRow(followers: count, updatedMs: now) }
        for name in followers.keys {
            followers[name] = followers[name]?.filter { $0.value.updatedMs >= now - Show.followersKeptMs }
        }
    }

    func followers(_ key: BeaconRef) -> Int {
        let since = clock.nowMs() - Show.followersFreshMs
        return followers.values.compactMap { $0[key] }.filter { $0.updatedMs >= since }.reduce(0) { $0 + $1.followers }
    }
}
