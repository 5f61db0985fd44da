/// fuzz: bytes (after a chosen token and TX power) as advertising data into EddystoneFrame.token(in:); a token found is in the data and re-encodes with advertisingData(for:txPower:) to well-formed data that yields the same token and TX power, and so does the chosen token
@testable import NearcastCore

/// Input: kind (1), length (1), 8 payload bytes, TX power (1), then the advertising data.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEddystone(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let kindByte = input.byte()
    let lengthByte = input.byte()
    let payload = Array(input.take(8)) + [UInt8](repeating: 0, count: 8)
    let tx = Int8(bitPattern: input.byte())
    let bytes = Array(input.rest())

    if let advertising = AdvertisingData(bytes: bytes) {
        require(bytes.count <= AdvertisingData.capacity && advertising.bytes == bytes, "AdvertisingData(bytes:) changed the bytes")
        if let found = EddystoneFrame.token(in: advertising) {
            require(found.token.kind == .direct || found.token.count == 8, "an EID of \(found.token.count) bytes")
            // The token's bytes are in the data (contiguous in an EID frame; in a UID frame the
            // 2 + 6 bytes after the namespace and length byte are contiguous too).
            require(contains(bytes, found.token.bytes), "token \(found.token) is not in \(bytes)")
            require(bytes.contains(UInt8(bitPattern: found.txPower)), "TX power \(found.txPower) is not in \(bytes)")
            roundTrip(found.token, txPower: found.txPower)
        }
    } else {
        require(bytes.count > AdvertisingData.capacity, "AdvertisingData(bytes:) refused \(bytes.count) bytes")
    }

    // A chosen token of either kind.
    let kind: TokenKind = kindByte & 1 == 0 ? .direct : .eid
    let count = kind == .eid ? 8 : Int(lengthByte % 8) + 1
    let token = try! Token(kind: kind, bytes: payload[0..<count])
    roundTrip(token, txPower: tx)
    return 0
}

/// advertisingData(for:txPower:) writes well-formed AD structures that token(in:) reads back.
func roundTrip(_ token: Token, txPower: Int8) {
    let data = EddystoneFrame.advertisingData(for: token, txPower: txPower)
    let bytes = data.bytes
    require(bytes.count <= AdvertisingData.capacity, "\(bytes.count) bytes of advertising data")
    // Length-type-value structures that tile the data exactly, none empty.
    var offset = 0
    while offset < bytes.count {
        let length = Int(bytes[offset])
        require(length >= 1 && offset + 1 + length <= bytes.count, "malformed AD structure at \(offset) in \(data)")
        offset += 1 + length
    }
    require(bytes.starts(with: [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE]), "flags and service UUID list missing in \(data)")
    guard let back = EddystoneFrame.token(in: data) else {
        fatalError("fuzz: no token in the advertising data written for \(token) at \(txPower) dBm: \(data)")
    }
    require(back.token == token && back.txPower == txPower,
            "\(token) at \(txPower) dBm reads back as \(back.token) at \(back.txPower) dBm")
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
        return true
    }
    return false
}
