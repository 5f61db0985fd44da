/// Who a request is, found once per request: what its key (or pass) grants, or why it grants
/// nothing, and the class of caller the per-address rate limits count it under.
struct CallerIdentity: Sendable {
    /// The key's access, or the refusal it earns (no key, an unknown key, an expired pass); nil
    /// when the key was not looked up (a key not in the cache from an address past its
    /// key-lookup budget, or a database that did not answer): `KeyMiddleware` looks then.
    var access: Result<Access, APIError>?
    var callerClass: CallerClass
}
