/// A 48-bit Bluetooth device address, most significant byte first when printed
/// (`C0:11:22:33:44:55`) and sent least significant byte first in HCI commands.
public struct BLEAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in the low 48 bits.
    public let value: UInt64

    public init?(value: UInt64) {
        guard value >> 48 == 0 else { return nil }
        self.value = value
    }

    /// A non-resolvable private address (Core spec Vol 6, Part B, 1.3.2.2): the two most
    /// significant bits are 0b00 and the other 46 bits are random, neither all zeros nor all ones.
    /// A beacon that rotates it with its EID cannot be followed from one EID to the next.
    public static func nonResolvablePrivate(using generator: inout some RandomNumberGenerator) -> BLEAddress {
        let randomMask: UInt64 = (1 << 46) - 1
        while true {
            let bits = generator.next() & randomMask
            if bits != 0 && bits != randomMask { return BLEAddress(value: bits)! }
        }
    }

    /// Byte `index` in HCI order (0 is the least significant byte).
    public subscript(hciByte index: Int) -> UInt8 {
        precondition((0..<6).contains(index), "a BLE address has 6 bytes")
        return UInt8(truncatingIfNeeded: value >> UInt64(8 * index))
    }

    /// True for a non-resolvable private address.
    public var isNonResolvablePrivate: Bool { value >> 46 == 0 }

    public var description: String {
        var text = ""
        for index in stride(from: 5, through: 0, by: -1) {
            text += Hex.format(UInt64(self[hciByte: index]), byteCount: 1).uppercased()
            if index > 0 { text += ":" }
        }
        return text
    }
}
