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
    /// key, one read shared by the requests that ask meanwhile); a key not in it and not a
    /// project's lately costs one token of `address`'s key-lookup budget before the database is
    /// read, so a flood of made-up keys cannot turn into database reads: past that
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
            return CallerIdentity(access: .success(.pass(pass)), callerClass: audienceClass(of: request, project: pass.project, address: address, nowMs: now))
        }
        let hash = ProjectKeys.hash(key)
        let found: Access?
        if let cached = cache.lookup(hash, nowMs: now) {
            found = cached
        } else {
            let projects = projects
            do {
                // (Not `try?`: it would flatten "no project has this key" into "not looked up".)
                switch try await cache.read(hash, nowMs: now, admit: { limiter.admitKeyLookup(from: address) },
                                            from: { try await projects.access(forHash: hash) }) {
                case .read(let access): found = access
                case .notLookedUp: return CallerIdentity(access: nil, callerClass: .keyless)
                }
            } catch {
                return CallerIdentity(access: nil, callerClass: .keyless)   // the key check reports the error
            }
        }
        guard let access = found else { return CallerIdentity(access: .failure(.wrongKey), callerClass: .keyless) }
        if access.canManage && RequestSupport.keyIsInAddress(request) {
            return CallerIdentity(access: .failure(Self.secretKeyInAddress), callerClass: .keyless)
        }
        return CallerIdentity(access: .success(access),
                              callerClass: access.canManage ? .presenter : audienceClass(of: request, project: access.project, address: address, nowMs: now))
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
            let projects = projects
            switch try await cache.read(hash, nowMs: now, admit: { true }, from: { try await projects.access(forHash: hash) }) {
            case .read(let access): found = access
            case .notLookedUp: found = nil   // (not reached: admitted)
            }
        }
        guard let found else { throw APIError.wrongKey }
        if found.canManage && RequestSupport.keyIsInAddress(request) { throw Self.secretKeyInAddress }
        return found
    }

    /// The secret key is never taken from an address: addresses are written to access logs,
    /// proxies' logs and browser history, and a page's address travels in links and
    /// screenshots. (The public key and passes may ride in `?key=`: an event stream or an image
    /// cannot send a header, and neither manages anything.)
    static let secretKeyInAddress = APIError(.forbidden, "key: the secret key is taken only from the X-Api-Key header, never from an address (?key=), "
                                             + "which ends up in logs and browser history; send it in the header, and make a new key "
                                             + "(nearcast-hub project rotate-keys PROJECT --only secret) if it was sent in an address", field: "key")

    private static let invalidPass = APIError(.forbidden, "the pass is not valid or has expired: scan the code on the presenter's screen again")

    /// `phone` when `request` carries a genuine id of `project`'s, else `audience`. The phone's
    /// bucket is its identity's at `address`: an id stolen (it rides in the address of an event
    /// stream or an image) and spent from elsewhere spends a bucket of its own, not its owner's.
    private func audienceClass(of request: Request, project: String, address: String?, nowMs: Int64) -> CallerClass {
        guard let text = RequestSupport.phone(of: request), let phone = phoneIDs.verify(id: text, nowMs: nowMs),
              phone.project == project else { return .audience }
        return .phone(phone.identity + "\n" + (address ?? ""))
    }
}
