/// Bytes for the terminal, collected in a fixed buffer (no heap) and drained by the transport
/// after each call into the console. When full, further bytes are dropped and counted: a
/// terminal that cannot keep up loses output, never the box's time.
public struct TerminalOutput: Sendable {
    /// Bytes held at most.
    public static let capacity = 4096

    private var storage: FixedArray<Bytes4096, UInt8> = FixedArray(repeating: 0)
    /// Bytes waiting.
    public private(set) var count = 0
    /// Bytes dropped because the buffer was full.
    public private(set) var dropped = 0

    public init() {}

    /// Appends one byte.
    public mutating func append(_ byte: UInt8) {
        guard count < Self.capacity else { dropped += 1; return }
        storage[count] = byte
        count += 1
    }

    /// Appends the bytes of a static string (no allocation).
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { append(byte) } }
    }

    /// Appends a decimal number.
    public mutating func append(decimal value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: FixedArray<Tuple32<UInt8>, UInt8> = FixedArray(repeating: 0)
        var used = 0
        repeat {
            digits[used] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            used += 1
        } while magnitude > 0
        while used > 0 { used -= 1; append(digits[used]) }
    }

    /// Appends arbitrary bytes.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        for byte in bytes { append(byte) }
    }

    /// Byte `index`.
    public subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count, "terminal output index out of range")
        return storage[index]
    }

    /// Calls `body` with the waiting bytes; `body` returns how many it consumed (a non-blocking
    /// write may take fewer), and those are removed.
    public mutating func drain(_ body: (UnsafeRawBufferPointer) -> Int) {
        guard count > 0 else { return }
        let consumed = storage.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        }
        let taken = max(0, min(consumed, count))
        if taken < count {
            for index in taken..<count { storage[index - taken] = storage[index] }
        }
        count -= taken
    }

    /// Forgets the waiting bytes.
    public mutating func removeAll() { count = 0 }
}
