import NearcastCore
import NearcastNearby

/// The box's publications and its strategy: what is on the air now, the messages waiting for
/// the box's hub identity, and which mediums and mode the box uses. Each publication keeps to
/// the mediums it asked for within the box's strategy. The console, the config file's reload,
/// the hub link (the identity arriving or lost) and the daemon's start change it through its
/// methods; `status`, the LEDs and the saved settings read it.
final class Publications {
    /// One publication on the air.
    struct Entry {
        /// A token publication's id is its scheduler slot (0-7, as the log lines show it),
        /// reused once unpublished; a message's is 8 or above (messages share one slot, the
        /// hub identity's EID).
        let id: Int
        let request: PublicationRequest
        let publication: Publication
    }

    private let manager: MessageManager
    private let progress: LoopProgress
    private let log: LogSink
    /// Whether messages can be published: a hub is configured.
    let throughHub: Bool
    /// Publications in the order they were made.
    private(set) var entries: [Entry] = []
    /// Messages published before the box had its hub identity (the first start with a hub that
    /// has not answered yet): they go on air when it arrives.
    private(set) var waiting: [(id: Int, request: PublicationRequest)] = []
    /// The box's strategy: which mediums it uses and whether it broadcasts and scans.
    private(set) var strategy: Strategy
    /// The mediums the daemon may listen on (`--subscribe` and the board's devices).
    let listenMediums: DiscoveryMediums

    init(manager: MessageManager, progress: LoopProgress, strategy: Strategy, listenMediums: DiscoveryMediums,
         throughHub: Bool, log: LogSink) {
        self.manager = manager
        self.progress = progress
        self.strategy = strategy
        self.listenMediums = listenMediums
        self.throughHub = throughHub
        self.log = log
    }

    /// What the scheduler is doing with a publication on the air: its token now, its mediums,
    /// its next switch.
    func status(of entry: Entry) -> TokenScheduler.PublicationStatus? {
        manager.schedule.status(of: entry.publication.slot)
    }

    /// The mediums the daemon listens on now: the strategy's, while its mode includes scan.
    var listeningMediums: DiscoveryMediums {
        strategy.mode.contains(.scan) ? strategy.mediums.intersection(listenMediums) : []
    }

    /// Every publication as the settings name it, those on the air first.
    var specs: [PublicationSpec] { entries.map { PublicationSpec($0.request) } + waiting.map { PublicationSpec($0.request) } }

    /// Whether publication `id` waits for the box's hub identity.
    func isWaiting(_ id: Int) -> Bool { waiting.contains { $0.id == id } }

    /// Publishes and returns the new publication's console id. The publication keeps to the
    /// mediums it asks for within the box's strategy, from the first tick. A message replaces
    /// the one of the same namespaced type (a presenter's next slide).
    @discardableResult
    func publish(_ request: PublicationRequest) throws(NearbyError) -> Int {
        guard request.needsHubIdentity else {
            let publication = try onAir(request)
            entries.append(Entry(id: publication.slot.index, request: request, publication: publication))
            return publication.slot.index
        }
        guard throughHub else {
            throw .badMessage("a message is published through a hub: run with --hub URL --hub-key SECRET (or hub in the config file)")
        }
        // The message it replaces (of the same type; the hub beacon replaces the hub beacon)
        // keeps its id, and stays on air if the new one is refused.
        let type = request.namespacedType
        let replaced = entries.firstIndex { $0.request.needsHubIdentity && $0.request.namespacedType == type }
        let queued = waiting.firstIndex { $0.request.namespacedType == type }
        let id = replaced.map { entries[$0].id } ?? queued.map { waiting[$0].id } ?? messageID()
        func retireReplaced() {
            if let replaced { entries.remove(at: replaced).publication.unpublish() }
            if let queued { waiting.remove(at: queued) }
        }
        guard manager.hubIdentity != nil else {
            retireReplaced()
            waiting.append((id, request))
            return id
        }
        let publication = try onAir(request)
        retireReplaced()
        entries.append(Entry(id: id, request: request, publication: publication))
        return id
    }

    /// Ends publication `id`; false when there is none.
    func unpublish(_ id: Int) -> Bool {
        if let index = waiting.firstIndex(where: { $0.id == id }) {
            waiting.remove(at: index)
            return true
        }
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: index).publication.unpublish()
        return true
    }

    /// Ends every publication (at shutdown).
    func unpublishAll() {
        for entry in entries { entry.publication.unpublish() }
        entries.removeAll()
        waiting.removeAll()
    }

    /// Makes `strategy` the box's: each publication keeps to the mediums it asked for within it.
    func apply(_ strategy: Strategy) {
        guard strategy != self.strategy else { return }
        self.strategy = strategy
        for entry in entries { manager.setStrategy(effectiveStrategy(of: entry.request), for: entry.publication) }
    }

    /// The box's hub identity arrived (derived on the first contact: the waiting messages go on
    /// air) or was lost (nil: the hub's key changed; the messages go off air until a new one).
    func hubIdentityChanged(_ identity: HubIdentity?) {
        guard let identity else {
            for entry in entries where entry.request.needsHubIdentity {
                entry.publication.unpublish()
                waiting.append((entry.id, entry.request))
            }
            entries.removeAll { $0.request.needsHubIdentity }
            manager.hubIdentity = nil
            return
        }
        manager.hubIdentity = identity
        let queued = waiting
        waiting.removeAll()
        for (id, request) in queued {
            do {
                entries.append(Entry(id: id, request: request, publication: try onAir(request)))
                log("publishing \(request.message) as publication \(id) (the box has its hub identity now)")
            } catch {
                log("error: cannot publish \(request.message): \(error)")
            }
        }
    }

    private func onAir(_ request: PublicationRequest) throws(NearbyError) -> Publication {
        let publication = try manager.publish(request.message, strategy: request.strategy, at: Int64(progress.position))
        manager.setStrategy(effectiveStrategy(of: request), for: publication)
        return publication
    }

    /// The lowest free message id (8 and up, clear of the token publications' slots).
    private func messageID() -> Int {
        var id = SchedulerConfiguration.maximumPublications
        while entries.contains(where: { $0.id == id }) || waiting.contains(where: { $0.id == id }) { id += 1 }
        return id
    }

    /// What a publication does under the box's strategy: the mediums it asked for that the
    /// box uses, in the box's mode.
    private func effectiveStrategy(of request: PublicationRequest) -> Strategy {
        Strategy(mediums: strategy.mediums.intersection(request.strategy.mediums), mode: strategy.mode)
    }
}
