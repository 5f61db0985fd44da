import NearcastCore
import NearcastDrivers

/// What the daemon broadcasts: a direct token, or an EID that rotates every 2^K seconds of
/// beacon time. EIDs are computed once per epoch (AES runs once, not per burst).
public final class Publication {
    public enum Source {
        case direct(Token)
        case eid(identityKey: [UInt8], exponent: Int)
    }

    public let source: Source
    private var cachedEpoch: UInt32?
    private var cachedToken: Token?

    public init(_ source: Source) { self.source = source }

    /// The token to send at beacon time `time`.
    public func token(at time: UInt32) throws -> Token {
        switch source {
        case .direct(let token):
            return token
        case .eid(let key, let exponent):
            let epoch = EphemeralIdentifier.epochStart(time: time, exponent: exponent)
            if epoch == cachedEpoch, let cachedToken { return cachedToken }
            let token = try EphemeralIdentifier.compute(identityKey: key, exponent: exponent, time: time,
                                                        cipher: OpenSSLAES128())
            cachedEpoch = epoch
            cachedToken = token
            return token
        }
    }

    /// A short description for the log.
    public var summary: String {
        switch source {
        case .direct(let token): return "direct token \(token.hex)"
        case .eid(_, let exponent): return "EID, rotating every 2^\(exponent) = \(1 << exponent) s"
        }
    }
}
