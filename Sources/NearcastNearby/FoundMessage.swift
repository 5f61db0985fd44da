import NearcastCore

/// A token that a subscription heard, and the medium it was first heard on.
///
/// ```swift
/// try manager.subscribe(onFound: { found in print("\(found.token.hex) over \(found.medium)") },
///                       onLost: { lost in print("\(lost.token.hex) gone") })
/// ```
public struct FoundMessage: Sendable, Equatable, CustomStringConvertible {
    /// The token heard.
    public var token: Token
    /// The medium it was first heard on.
    public var medium: DiscoveryMediums

    public init(token: Token, medium: DiscoveryMediums) {
        self.token = token
        self.medium = medium
    }

    public var description: String { "\(token) over \(medium)" }
}
