/// Why a token could not be made.
public enum TokenError: Error, Equatable, CustomStringConvertible {
    case invalidHex(String)
    case wrongLength(kind: TokenKind, count: Int)
    case wrongKeyLength(count: Int)

    public var description: String {
        switch self {
        case .invalidHex(let text):
            return "invalid hex payload '\(text)': use 2 to 16 hex digits, an even number"
        case .wrongLength(.eid, let count):
            return "an eid token is exactly 8 bytes, got \(count)"
        case .wrongLength(_, let count):
            return "a direct token is 1 to 8 bytes, got \(count)"
        case .wrongKeyLength(let count):
            return "an identity key is 16 bytes (32 hex digits), got \(count)"
        }
    }
}
