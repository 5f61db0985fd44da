/// The load balancers and reverse proxies in front of the hub (the config file's
/// `trustedProxies`: addresses and networks), and how the client's address is found through
/// them.
///
/// A request from a trusted proxy carries the client's address in `X-Forwarded-For`, which each
/// proxy appends to: read right to left, each trusted hop is skipped and the first address that
/// is not trusted is the client (what a client wrote itself stands further left, and is never
/// reached). A request from any other peer is that peer, whatever it says: a phone cannot buy
/// itself a new address, nor take another's, by writing the header.
///
/// ```
/// let proxies = try TrustedProxies(["10.0.0.0/8"])
/// proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["6.6.6.6, 198.51.100.7, 10.0.0.3"])  // "198.51.100.7"
/// proxies.clientAddress(peer: "198.51.100.9", forwardedFor: ["6.6.6.6"])                       // "198.51.100.9"
/// ```
public struct TrustedProxies: Sendable, Equatable {
    let ranges: [AddressRange]

    /// No proxy: every request is its peer.
    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [AddressRange]) { self.ranges = ranges }

    /// The config file's entries; the error names the first that is not an address or network.
    init(_ entries: [String]) throws(AddressRangeError) {
        ranges = try entries.map { (entry) throws(AddressRangeError) in try AddressRange(entry) }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether a peer's address (as its socket gives it) is one of the trusted proxies.
    func trusts(_ peer: String?) -> Bool {
        guard !ranges.isEmpty, let peer, let address = IPAddress(peer) else { return false }
        return trusts(address)
    }

    private func trusts(_ address: IPAddress) -> Bool { ranges.contains { $0.contains(address) } }

    /// The client's address: `peer` itself unless it is trusted; from a trusted peer, the
    /// rightmost address in `forwardedFor` (every `X-Forwarded-For` line, in order) that is not
    /// a trusted hop, or the leftmost when all are. An entry that is not an address ends the
    /// walk at the hop to its right (the last one a trusted proxy vouched for), so garbage
    /// gives no one a fresh address. The answer is the canonical spelling (`IPAddress`).
    func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard trusts(peer), let peer, var client = IPAddress(peer) else { return peer }
        let entries = forwardedFor.joined(separator: ",").split(separator: ",").map(\.trimmingWhitespace).filter { !$0.isEmpty }
        for entry in entries.reversed() {
            guard let hop = IPAddress(forwarded: entry) else { break }
            client = hop
            if !trusts(hop) { break }
        }
        return client.description
    }
}

extension TrustedProxies: Decodable, CustomStringConvertible {
    /// A list of entries; one that is not an address or a network is an error naming it (the
    /// config file's message adds the file and the key).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let entries = try? container.decode([String].self) else {
            throw DecodingError.typeMismatch(TrustedProxies.self, .init(codingPath: decoder.codingPath, debugDescription: "a list of strings"))
        }
        do {
            try self.init(entries)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public var description: String { ranges.map(\.description).joined(separator: ", ") }
}

private extension Substring {
    var trimmingWhitespace: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
