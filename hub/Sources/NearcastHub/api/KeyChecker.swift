import Hummingbird

/// Who a request is: its key (or pass) checked against the projects, with the keys checked
/// lately kept for a second (`KeyCache`), and the class of caller the per-address rate limits
/// count it under (`CallerClass`).
struct KeyChecker: Sendable {
    let projects: any ProjectRepository
    let cache: KeyCache
    let presence: Presence
    let phoneIDs: PhoneIDs
    let clock: HubClock
    let limiter: HubLimiter

    /// The caller's project and rights; 401 without a key, 403 with an unknown one or a public
    /// key (or a pass) where the secret one is needed.
    func access(_ request: Request, manage: Bool) async throws -> Access {
        guard let key = RequestSupport.key(of: request) else { throw APIError.unauthenticated }
        if key.hasPrefix(Presence.passPrefix) {
            guard let pass = presence.verify(pass: key, nowMs: clock.nowMs()) else {
                throw APIError(.forbidden, "the pass is not valid or has expired: scan the code on the presenter's screen again")
            }
            if manage { throw APIError(.forbidden, "this call needs the project's secret key; a pass only reads") }
            return .pass(pass)
        }
        let hash = ProjectKeys.hash(key), now = clock.nowMs()
        let access: Access?
        if let cached = cache.lookup(hash, nowMs: now) {
            access = cached
        } else {
            access = try await projects.access(forHash: hash)
            cache.store(hash, access, nowMs: now)
        }
        guard let access else { throw APIError.wrongKey }
        if manage && !access.canManage {
            throw APIError(.forbidden, "this call needs the project's secret key; the public API key only reads")
        }
        return access
    }

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
        let hash = ProjectKeys.hash(key)
        let access: Access?
        if let cached = cache.lookup(hash, nowMs: now) {
            access = cached
        } else {
            guard limiter.admitKeyLookup(from: address), let found = try? await projects.access(forHash: hash) else {
                return .keyless
            }
            cache.store(hash, found, nowMs: now)
            access = found
        }
        guard let access else { return .keyless }
        return access.canManage ? .presenter : audienceClass(of: request, project: access.project, nowMs: now)
    }

    /// `phone` when `request` carries a genuine id of `project`'s, else `audience`.
    private func audienceClass(of request: Request, project: String, nowMs: Int64) -> CallerClass {
        guard let text = RequestSupport.phone(of: request), let phone = phoneIDs.verify(id: text, nowMs: nowMs),
              phone.project == project else { return .audience }
        return .phone(phone.identity)
    }
}
