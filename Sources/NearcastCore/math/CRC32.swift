/// CRC-32 as IEEE 802.3, zlib and PNG compute it (reflected polynomial 0xEDB88320, initial
/// value and final XOR 0xFFFFFFFF). Bitwise rather than table-driven: it checks state files of
/// a few dozen bytes, where a 1 KB table would cost more than it saves.
///
/// ```swift
/// CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926, the catalogue check value
/// ```
public enum CRC32 {
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
