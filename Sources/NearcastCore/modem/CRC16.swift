/// CRC-16/CCITT (polynomial 0x1021, no reflection, no final XOR) computed over a bit string,
/// since the frame's kind field is not a whole byte. The initial value is the burst format's
/// marker: ``ModemProfile/crcInitialValue`` (0x1D0F) for format 2, 0xFFFF (CRC-16/CCITT-FALSE)
/// for format 1.
///
/// ```swift
/// CRC16.checksum(bits: 0x313233343536373839, count: 72, initial: 0xFFFF)   // 0x29B1
/// CRC16.checksum(bits: 0x313233343536373839, count: 72, initial: 0x1D0F)   // 0xE5CC (CRC-16/AUG-CCITT)
/// ```
public enum CRC16 {
    /// The generator polynomial without its x^16 term.
    public static let polynomial: UInt16 = 0x1021

    /// The CRC of the low `count` bits of `bits`, most significant first.
    @inlinable
    public static func checksum(bits: UInt128, count: Int, initial: UInt16 = ModemProfile.crcInitialValue) -> UInt16 {
        var crc = initial
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
