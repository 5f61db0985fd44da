import Hummingbird

/// Who a request is: its key (or pass) checked against the projects, with the keys checked
/// lately kept for a second (`KeyCache`), and the class of caller the per-address rate limits
/// count it under (`CallerClass`). `identify` runs once per request, first
/// (`AddressRateMiddleware`); `KeyMiddleware` takes its answer from the request's context.
package struct KeyChecker: Sendable {
    let projects: any ProjectRepository
    package let cache: KeyCache
    let presence: Presence
    let phoneIDs: PhoneIDs
    let clock: HubClock
    let limiter: HubLimiter

    /// Who `request` is. A key in the key cache is answered from it (read once a second per
    /// key); a key not in it costs one token of `address`'s key-lookup budget before the
    /// database is read, so a flood of made-up keys cannot turn into database reads: past that
    /// budget it is left unlooked (`access` nil) and counts as keyless. A phone id is checked by
    /// its signature alone (no database): one that is not genuine, expired or for another
    /// project leaves the request in the audience's class.
    func identify(_ request: Request, address: String?) async -> CallerIdentity {
        guard let key = RequestSupport.key(of: request) else { return CallerIdentity(access: .failure(.unauthenticated), callerClass: .keyless) }
        let now = clock.nowMs()
        if key.hasPrefix(Presence.passPrefix) {
            guard let pass = presence.verify(pass: key, nowMs: now) else {
                return CallerIdentity(access: .failure(Self.invalidPass), callerClass: .keyless)
            }
            return CallerIdentity(access: .success(.pass(pass)), callerClass: audienceClass(of: request, project: pass.project, nowMs: now))
        }
        let hash = ProjectKeys.hash(key)
        let found: Access?
        if let cached = cache.lookup(hash, nowMs: now) {
            found = cached
        } else {
            guard limiter.admitKeyLookup(from: address) else { return CallerIdentity(access: nil, callerClass: .keyless) }
            do {
                // (Not `try?`: it would flatten "no project has this key" into "not looked up".)
                found = try await projects.access(forHash: hash)
            } catch {
                return CallerIdentity(access: nil, callerClass: .keyless)   // the key check reports the error
            }
            cache.store(hash, found, nowMs: now)
        }
        guard let access = found else { return CallerIdentity(access: .failure(.wrongKey), callerClass: .keyless) }
        return CallerIdentity(access: .success(access),
                              callerClass: access.canManage ? .presenter : audienceClass(of: request, project: access.project, nowMs: now))
    }

    /// The caller's project and rights, from what `identify` found for this request (or found
    /// now, when it was not run or did not look); 401 without a key, 403 with an unknown one or a
    /// public key (or a pass) where the secret one is needed.
    func access(_ request: Request, context: HubRequestContext, manage: Bool) async throws -> Access {
        let access: Access
        switch context.identity?.access {
        case .success(let found)?: access = found
        case .failure(let refusal)?: throw refusal
        case nil: access = try await lookUp(request)
        }
        if manage && !access.canManage {
            throw APIError(.forbidden, access.kindName == "pass" ? "this call needs the project's secret key; a pass only reads"
                                                                 : "this call needs the project's secret key; the public API key only reads")
        }
        return access
    }

    /// The key's access read afresh (the cache first), database errors thrown.
    private func lookUp(_ request: Request) async throws -> Access {
        guard let key = RequestSupport.key(of: request) else { throw APIError.unauthenticated }
        let now = clock.nowMs()
        if key.hasPrefix(Presence.passPrefix) {
            guard let pass = presence.verify(pass: key, nowMs: now) else { throw Self.invalidPass }
            return .pass(pass)
        }
        let hash = ProjectKeys.hash(key)
        let found: Access?
        if let cached = cache.lookup(hash, nowMs: now) {
            found = cached
        } else {
            found = try await projects.access(forHash: hash)
            cache.store(hash, found, nowMs: now)
        }
        guard let found else { throw APIError.wrongKey }
        return found
    }

    private static let invalidPass = APIError(.forbidden, "the pass is not valid or has expired: scan the code on the presenter's screen again")

    /// `phone` when `request` carries a genuine id of `project`'s, else `audience`.
    private func audienceClass(of request: Request, project: String, nowMs: Int64) -> CallerClass {
        guard let text = RequestSupport.phone(of: request), let phone = phoneIDs.verify(id: text, nowMs: nowMs),
              phone.project == project else { return .audience }
        return .phone(phone.identity)
    }
}
