import Hummingbird

/// Who a request comes from, as the per-address rate limits see it: at a venue the presenter's
/// laptop and hundreds of phones share one NAT address, so one budget per address let a keyless
/// flood from any phone there refuse the presenter's page turns and every other phone's
/// resolves. Each class has its own bucket per address, so no class can spend another's:
/// - `presenter`: a request with the project's secret key (page turns, the presenter's streams);
/// - `audience`: the public key or a pass (resolves, follows, reactions);
/// - `keyless`: no key, or one no project has (pages, `/healthz`, joining by code).
enum CallerClass: String, Sendable, CaseIterable {
    case presenter, audience, keyless
}

extension HubServices {
    /// The class of `request`'s caller at `address`. A key is looked up in the key cache (read
    /// once a second per key); a key not in it costs one token of the address's key-lookup budget
    /// before the database is read, so a flood of made-up keys cannot turn into database reads;
    /// past that budget the request counts as keyless.
    func callerClass(of request: Request, address: String?) async -> CallerClass {
        guard let key = RequestSupport.key(of: request) else { return .keyless }
        let now = clock.nowMs()
        if key.hasPrefix(Presence.passPrefix) {
            return presence.verify(pass: key, nowMs: now) == nil ? .keyless : .audience
        }
        let hash = ProjectStore.hash(key)
        let access: ProjectStore.Access?
        if let cached = keyCache.lookup(hash, nowMs: now) {
            access = cached
        } else {
            guard limiter.admitKeyLookup(from: address), let found = try? await projects.access(forHash: hash) else {
                return .keyless
            }
            keyCache.store(hash, found, nowMs: now)
            access = found
        }
        guard let access else { return .keyless }
        return access.canManage ? .presenter : .audience
    }
}
