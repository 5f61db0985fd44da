/// Eddystone advertisements for tokens, so that existing beacon scanners read them.
///
/// Layout (google/eddystone protocol specification), after the flags AD structure
/// `02 01 06` (LE General Discoverable, BR/EDR not supported) and the complete list of 16-bit
/// service UUIDs `03 03 AA FE`:
///
/// - EID frame: `0D 16 AA FE 30 <tx> <8-byte EID>`.
/// - UID frame: `17 16 AA FE 00 <tx> <10-byte namespace> <6-byte instance> 00 00`.
///
/// `tx` is the calibrated transmit power at 0 m, a signed dBm value. Direct tokens ride in UID
/// frames: the namespace is the 7 bytes `NEARCST`, one byte giving the token's length (1-8),
/// then the token's first 2 bytes; the instance holds bytes 2-7 (zero-padded for short tokens).
public enum EddystoneFrame {
    /// The Eddystone 16-bit service UUID.
    public static let serviceUUID: UInt16 = 0xFEAA
    /// Frame type of a UID frame.
    public static let uidFrameType: UInt8 = 0x00
    /// Frame type of an EID frame.
    public static let eidFrameType: UInt8 = 0x30
    /// The first 7 bytes of the namespace of Nearcast's UID frames ("NEARCST").
    public static let namespacePrefix: [UInt8] = [0x4E, 0x45, 0x41, 0x52, 0x43, 0x53, 0x54]

    static let flagsType: UInt8 = 0x01
    static let completeUUID16Type: UInt8 = 0x03
    static let serviceData16Type: UInt8 = 0x16
    /// LE General Discoverable Mode | BR/EDR Not Supported.
    static let flags: UInt8 = 0x06

    /// The advertising data carrying `token` with calibrated TX power `txPower` dBm at 0 m.
    public static func advertisingData(for token: Token, txPower: Int8) -> AdvertisingData {
        var data = AdvertisingData()
        data.appendStructure(type: flagsType, CollectionOfOne(flags))
        data.append(3)
        data.append(completeUUID16Type)
        data.append(UInt8(serviceUUID & 0xFF)); data.append(UInt8(serviceUUID >> 8))
        let tx = UInt8(bitPattern: txPower)
        switch token.kind {
        case .eid:
            // 0x16, UUID (2), frame type, tx, EID (8) = 13 bytes after the length.
            data.append(13)
            data.append(serviceData16Type)
            data.append(UInt8(serviceUUID & 0xFF)); data.append(UInt8(serviceUUID >> 8))
            data.append(eidFrameType)
            data.append(tx)
            for index in 0..<8 { data.append(token[index]) }
        case .direct:
            // 0x16, UUID (2), frame type, tx, namespace (10), instance (6), RFU (2) = 23 bytes.
            data.append(23)
            data.append(serviceData16Type)
            data.append(UInt8(serviceUUID & 0xFF)); data.append(UInt8(serviceUUID >> 8))
            data.append(uidFrameType)
            data.append(tx)
            for byte in namespacePrefix { data.append(byte) }
            data.append(UInt8(token.count))
            for index in 0..<8 { data.append(index < token.count ? token[index] : 0) }
            data.append(0); data.append(0)
        }
        return data
    }

    /// The token in advertising data from a scanner, or nil when it holds no Eddystone EID frame
    /// and no Nearcast UID frame. Malformed structures are rejected, never read past.
    public static func token(in data: AdvertisingData) -> (token: Token, txPower: Int8)? {
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { return nil }                         // early terminator
            guard offset + 1 + length <= data.count else { return nil }
            let type = data[offset + 1]
            let body = offset + 2
            let bodyLength = length - 1
            if type == serviceData16Type, bodyLength >= 4,
               UInt16(data[body]) | UInt16(data[body + 1]) << 8 == serviceUUID {
                let frameType = data[body + 2]
                let tx = Int8(bitPattern: data[body + 3])
                let frame = body + 4
                if frameType == eidFrameType && bodyLength >= 12 {
                    var value: UInt64 = 0
                    for index in 0..<8 { value = value << 8 | UInt64(data[frame + index]) }
                    return Token(kind: .eid, packed: value, count: 8).map { ($0, tx) }
                }
                if frameType == uidFrameType && bodyLength >= 20 {
                    for index in 0..<namespacePrefix.count where data[frame + index] != namespacePrefix[index] {
                        return nil
                    }
                    let count = Int(data[frame + 7])
                    guard (1...8).contains(count) else { return nil }
                    var value: UInt64 = 0
                    for index in 0..<count { value = value << 8 | UInt64(data[frame + 8 + index]) }
                    for index in count..<8 where data[frame + 8 + index] != 0 { return nil }
                    return Token(kind: .direct, packed: value, count: count).map { ($0, tx) }
                }
            }
            offset += 1 + length
        }
        return nil
    }
}
