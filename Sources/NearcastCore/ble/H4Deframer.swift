/// Cuts the byte stream from an H4 UART (Core Vol 4, Part A) into packets: a packet-type byte
/// (0x01 command, 0x02 ACL, 0x03 SCO, 0x04 event, 0x05 ISO), a header that gives the length,
/// then the payload. Bytes arrive in any pieces; a packet is handed out once it is whole.
///
/// Line noise or a byte lost at start-up leaves the stream out of step: a byte that cannot
/// start a packet is dropped and counted until a packet type comes along. Data packets too big
/// to keep (Nearcast only needs events) are skipped. Fixed storage; nothing is allocated.
public struct H4Deframer: Sendable {
    /// The longest packet kept: a whole event is at most 1 + 2 + 255 bytes.
    public static let capacity = 260

    private var buffer: FixedArray<Tuple512<UInt8>, UInt8> = FixedArray(repeating: 0)
    private var count = 0
    private var skipping = 0
    /// Bytes dropped because they could not start a packet.
    public private(set) var discardedBytes = 0
    /// Packets skipped because they were larger than ``capacity``.
    public private(set) var skippedPackets = 0

    public init() {}

    /// Feeds received bytes; calls `packet` with each whole packet's type and the bytes after
    /// the type byte (for an event: code, length, parameters).
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ packet: (UInt8, UnsafeRawBufferPointer) -> Void) {
        for byte in bytes {
            if skipping > 0 { skipping -= 1; continue }
            if count == 0 && !(0x01...0x05).contains(byte) {
                discardedBytes += 1
                continue
            }
            buffer[count] = byte
            count += 1
            guard let total = packetLength() else { continue }
            if total > Self.capacity {
                skippedPackets += 1
                skipping = total - count
                count = 0
            } else if count == total {
                let type = buffer[0]
                buffer.withUnsafeBytes { raw in packet(type, UnsafeRawBufferPointer(rebasing: raw[1..<total])) }
                count = 0
            }
        }
    }

    /// The whole packet's length (type byte included) once its header is in, else nil.
    private func packetLength() -> Int? {
        switch buffer[0] {
        case 0x04: return count >= 3 ? 3 + Int(buffer[2]) : nil                                  // event
        case 0x01: return count >= 4 ? 4 + Int(buffer[3]) : nil                                  // command
        case 0x03: return count >= 4 ? 4 + Int(buffer[3]) : nil                                  // SCO
        case 0x02: return count >= 5 ? 5 + (Int(buffer[3]) | Int(buffer[4]) << 8) : nil           // ACL
        default: return count >= 5 ? 5 + ((Int(buffer[3]) | Int(buffer[4]) << 8) & 0x3FFF) : nil  // ISO
        }
    }
}
