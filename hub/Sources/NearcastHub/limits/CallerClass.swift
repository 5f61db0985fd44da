import Hummingbird

/// Who a request comes from, as the per-address rate limits see it: at a venue the presenter's
/// laptop and hundreds of phones share one NAT address, so one budget per address let a keyless
/// flood from any phone there refuse the presenter's page turns and every other phone's
/// resolves. Each class has its own bucket, so no class can spend another's:
/// - `presenter`: a request with the project's secret key (page turns, the presenter's streams),
///   a bucket per address;
/// - `phone`: the public key or a pass with a phone id the hub gave (`PhoneIDs`), a bucket per
///   id: one phone flooding spends its own budget, never the room's, and another id costs work;
/// - `audience`: the public key or a pass without an id (a phone before it has earned one), a
///   bucket per address, the last resort sized for a venue's NAT;
/// - `keyless`: no key, or one no project has (pages, `/healthz`, joining by code), a bucket per
///   address.
enum CallerClass: Sendable, Equatable {
    case presenter, audience, keyless
    /// The phone id (the whole signed text: the bucket's key).
    case phone(String)
}

extension HubServices {
    /// The class of `request`'s caller at `address`. A key is looked up in the key cache (read
    /// once a second per key); a key not in it costs one token of the address's key-lookup budget
    /// before the database is read, so a flood of made-up keys cannot turn into database reads;
    /// past that budget the request counts as keyless. A phone id is checked by its signature
    /// alone (no database): one that is not genuine, expired or for another project leaves the
    /// request in the audience's class.
    func callerClass(of request: Request, address: String?) async -> CallerClass {
        guard let key = RequestSupport.key(of: request) else { return .keyless }
        let now = clock.nowMs()
        if key.hasPrefix(Presence.passPrefix) {
            guard let pass = presence.verify(pass: key, nowMs: now) else { return .keyless }
            return audienceClass(of: request, project: pass.project, nowMs: now)
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
        return access.canManage ? .presenter : audienceClass(of: request, project: access.project, nowMs: now)
    }

    /// `phone` when `request` carries a genuine id of `project`'s, else `audience`.
    private func audienceClass(of request: Request, project: String, nowMs: Int64) -> CallerClass {
        guard let text = RequestSupport.phone(of: request), let phone = phoneIDs.verify(id: text, nowMs: nowMs),
              phone.project == project else { return .audience }
        return .phone(text)
    }
}
