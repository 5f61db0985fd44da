/// One HTTP request to the hub: a method, a path under the hub's base URL, and a JSON body.
struct HubRequest: Equatable {
    var method: String
    var path: String
    var body: String?

    init(method: String, path: String, body: String? = nil) {
        self.method = method
        self.path = path
        self.body = body
    }
}

/// What came back from the hub: the HTTP status and body, or why there was no answer.
enum HubReply: Equatable {
    case answered(status: Int, body: String)
    case failed(String)
}

/// Why a hub call or the identity derivation could not be made, in words for the log.
struct HubFailure: Error, Equatable {
    let message: String
}

/// How the box's requests reach the hub, one at a time, without ever blocking the loop: started,
/// then polled once a period until the reply is there. ``CurlTransport`` is the box's; the unit
/// tests put an in-memory hub behind this.
protocol HubTransport: AnyObject {
    /// Starts `request` (none is under way); throws when it cannot be started at all.
    func start(_ request: HubRequest, now: Double) throws(HubFailure)
    /// The reply once it is there (then the transport is free), nil while the request runs.
    func poll(now: Double) -> HubReply?
    /// Stops the request under way (at shutdown).
    func cancel()
}

/// The box's EID identity derived with the hub's key: its public key goes to the hub at
/// registration, the identity key stays on the box.
struct DerivedIdentity: Equatable {
    var beaconPublicKey: [UInt8]
    var identityKey: [UInt8]
}

/// How the box derives its EID identity with the hub's key, without blocking the loop:
/// ``IdentityProcess`` runs `nearcast hub-identity`; the unit tests derive it in process.
protocol IdentityDerivation: AnyObject {
    /// Starts deriving the box's identity with the hub's X25519 public key.
    func start(serviceKey: [UInt8], now: Double) throws(HubFailure)
    /// The identity once derived (or why not), nil while it runs.
    func poll(now: Double) -> Result<DerivedIdentity, HubFailure>?
    /// Stops a derivation under way (at shutdown).
    func cancel()
}
