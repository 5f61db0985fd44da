import NearcastCore

/// Why a publication or subscription could not be made; its description says what to do.
///
/// ```swift
/// do { _ = try manager.publish(.eid(identityKey: [1, 2], exponent: 4)) }
/// catch { print(error) }    // "an identity key is 16 bytes, got 2"
/// ```
public enum NearbyError: Error, Equatable, CustomStringConvertible {
    /// All publication slots are taken.
    case tooManyPublications(limit: Int)
    /// All subscription slots are taken.
    case tooManySubscriptions(limit: Int)
    /// The strategy has no medium or no mode.
    case emptyStrategy(Strategy)
    /// An identity key that is not 16 bytes, or an exponent outside 0-15.
    case badMessage(String)
    /// AES failed while computing an EID.
    case cipherFailed(String)
    /// Content cannot be published before the box has an identity registered with a hub.
    case noHubIdentity

    public var description: String {
        switch self {
        case .tooManyPublications(let limit): return "already \(limit) publications: unpublish one first"
        case .tooManySubscriptions(let limit): return "already \(limit) subscriptions: cancel one first"
        case .emptyStrategy(let strategy): return "strategy \(strategy) uses no medium or no mode"
        case .badMessage(let why): return why
        case .cipherFailed(let why): return "EID computation failed: \(why)"
        case .noHubIdentity: return "no hub identity yet: content is published once the box has derived its identity with a hub"
        }
    }
}
