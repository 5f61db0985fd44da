/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR),
/// computed over a bit string, since the frame's kind field is not a whole byte.
///
/// ```swift
/// CRC16.checksum(bits: 0x313233343536373839, count: 72)   // 0x29B1, the catalogue check value
/// ```
public enum CRC16 {
    /// The generator polynomial without its x^16 term.
    public static let polynomial: UInt16 = 0x1021

    /// The CRC of the low `count` bits of `bits`, most significant first.
    @inlinable
    public static func checksum(bits: UInt128, count: Int) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        var index = count - 1
        while index >= 0 {
            let bit = UInt16(truncatingIfNeeded: bits >> UInt128(index)) & 1
            let feedback = (crc >> 15) ^ bit
            crc <<= 1
            if feedback != 0 { crc ^= polynomial }
            index -= 1
        }
        return crc
    }
}
