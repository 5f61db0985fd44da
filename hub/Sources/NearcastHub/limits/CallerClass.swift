import Hummingbird

/// Who a request comes from, as the per-address rate limits see it: at a venue the presenter's
/// laptop and hundreds of phones share one NAT address, so one budget per address let a keyless
/// flood from any phone there refuse the presenter's page turns and every other phone's
/// resolves. Each class has its own bucket, so no class can spend another's:
/// - `presenter`: a request with the project's secret key (page turns, the presenter's streams),
///   a bucket per address;
/// - `phone`: the public key or a pass with a phone id the hub gave (`PhoneIDs`), a bucket per
///   id and address: one phone flooding spends its own budget, never the room's, another id costs
///   work, and a stolen id used from elsewhere spends a bucket apart from its owner's;
/// - `audience`: the public key or a pass without an id (a phone before it has earned one), a
///   bucket per address, the last resort sized for a venue's NAT;
/// - `keyless`: no key, or one no project has (pages, `/healthz`, joining by code), a bucket per
///   address.
enum CallerClass: Sendable, Equatable {
    case presenter, audience, keyless
    /// The phone's identity (`PhoneIDs.Phone.identity`, the same for every id one challenge
    /// gave) and its address: the bucket's key.
    case phone(String)
}
