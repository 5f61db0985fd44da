/// An address or a network in CIDR notation (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`): one entry of
/// the config file's `trustedProxies`.
struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: IPAddress
    /// Leading bits that must match: up to 32 for IPv4, 128 for IPv6.
    let prefixLength: Int

    var description: String { "\(network)/\(prefixLength)" }

    /// Reads one entry; the error says what is wrong with it in words.
    init(_ text: String) throws(AddressRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0].trimmingSpaces) else {
            throw AddressRangeError("'\(text)' is not an IPv4 or IPv6 address (as 10.0.0.5 or 2001:db8::5), nor a network (10.0.0.0/8)")
        }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1].trimmingSpaces), (0...bits).contains(given) else {
                throw AddressRangeError("'\(text)': the prefix length after / must be 0 to \(bits)")
            }
            length = given
        }
        guard Self.masked(address.bytes, to: length) == address.bytes else {
            let network = IPAddress(bytes: Self.masked(address.bytes, to: length))!
            throw AddressRangeError("'\(text)' has bits set past its /\(length): the network is \(network)/\(length)")
        }
        network = address
        prefixLength = length
    }

    /// Whether `address` is in this range (an IPv4 address is never in an IPv6 range: mapped
    /// addresses were made IPv4 when read).
    func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.masked(address.bytes, to: prefixLength) == network.bytes
    }

    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, length - index * 8))
            return kept == 8 ? byte : kept == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xff << (8 - kept))
        }
    }
}

/// An entry of `trustedProxies` that is not an address or a network.
struct AddressRangeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
