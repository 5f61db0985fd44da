/// BLE legacy advertising data: at most 31 bytes of length-type-value structures, stored
/// inline so that building and rotating advertisements never touches the heap.
public struct AdvertisingData: Sendable, Equatable, CustomStringConvertible {
    /// The most a legacy advertising PDU carries (Core spec Vol 3, Part C, 11).
    public static let capacity = 31

    private var storage: FixedArray<Tuple32<UInt8>, UInt8> = FixedArray(repeating: 0)
    /// Bytes in use.
    public private(set) var count = 0

    public init() {}

    /// Makes advertising data from bytes (for parsing what a scanner received).
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count <= Self.capacity else { return nil }
        for byte in bytes { append(byte) }
    }

    /// Byte `index`.
    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "advertising data index out of range")
        return storage[index]
    }

    /// Appends one byte; the caller checks room with ``remaining``.
    public mutating func append(_ byte: UInt8) {
        precondition(count < Self.capacity, "advertising data is limited to 31 bytes")
        storage[count] = byte
        count += 1
    }

    /// Appends one AD structure: length (type + value), type, value.
    public mutating func appendStructure(type: UInt8, _ value: some Collection<UInt8>) {
        precondition(remaining >= value.count + 2, "AD structure does not fit in 31 bytes")
        append(UInt8(value.count + 1))
        append(type)
        for byte in value { append(byte) }
    }

    /// Room left, in bytes.
    public var remaining: Int { Self.capacity - count }

    /// The bytes, as an array (for printing and tests; allocates).
    public var bytes: [UInt8] { (0..<count).map { storage[$0] } }

    public static func == (lhs: AdvertisingData, rhs: AdvertisingData) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where lhs.storage[index] != rhs.storage[index] { return false }
        return true
    }

    /// Lower-case hex of the bytes.
    public var description: String { Hex.format(bytes) }
}
