import Foundation
import NIOCore

/// An IPv4 or IPv6 address as its bytes (4 or 16), read from text by the C library's
/// `inet_pton` (through NIO's `SocketAddress`) and written back in its one canonical spelling
/// (`inet_ntop`: RFC 5952 for IPv6). An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, what a
/// socket listening on `[::]` sees for an IPv4 client) is that IPv4 address, so a trusted
/// `192.0.2.0/24` matches it and one client has one bucket however it reached the hub.
///
/// ```
/// IPAddress("2001:DB8:0::1")?.description   // "2001:db8::1"
/// IPAddress("::ffff:10.0.0.5")?.description  // "10.0.0.5"
/// ```
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    let bytes: [UInt8]
    /// The canonical text.
    let description: String

    var isIPv4: Bool { bytes.count == 4 }

    /// Nil when `text` is not an address alone (no port, no brackets, no zone, no prefix).
    init?(_ text: some StringProtocol) {
        // Digits, dots and colons only: inet_pton's neighbours (a zone as in fe80::1%eth0) are not a client's address.
        guard !text.isEmpty, text.count <= 45, text.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }), let parsed = try? SocketAddress(ipAddress: String(text), port: 0) else { return nil }
        var bytes: [UInt8]
        switch parsed {
        case .v4(let address): bytes = withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address): bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        default: return nil
        }
        if bytes.count == 16 && bytes[..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        self.init(bytes: bytes)
    }

    /// `bytes`: 4 or 16 of them.
    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
        if bytes.count == 4 {
            description = bytes.map(String.init).joined(separator: ".")
        } else {
            var storage = sockaddr_in6()
            withUnsafeMutableBytes(of: &storage.sin6_addr) { $0.copyBytes(from: bytes) }
            description = SocketAddress(storage, host: "").ipAddress ?? bytes.map { String($0, radix: 16) }.joined(separator: ":")
        }
    }

    /// A client address as proxies write it in `X-Forwarded-For`: the address alone, an IPv4
    /// address with a port (`192.0.2.7:5123`), or an IPv6 address in brackets with or without a
    /// port (`[2001:db8::1]:5123`).
    init?(forwarded given: some StringProtocol) {
        let text = Substring(given)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.count > 1 && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            self.init(text[text.index(after: text.startIndex)..<close])
        } else if let colon = text.firstIndex(of: ":"), text.lastIndex(of: ":") == colon {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit) else { return nil }
            self.init(text[..<colon])
            guard isIPv4 else { return nil }
        } else {
            self.init(text)
        }
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
