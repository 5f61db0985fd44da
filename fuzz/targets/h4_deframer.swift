/// fuzz: a byte stream (after piece sizes) fed to H4Deframer in pieces; every packet is whole (its length what its header says), the packets, dropped bytes and skipped packets match a reference deframer and feeding in one piece, and feeding allocates nothing
@testable import NearcastCore

/// Input: n = byte % 16, then n piece sizes (0-255 bytes each, used in turn; none: one byte at
/// a time, also when all are 0), then the stream.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH4Deframer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let pieceCount = Int(input.byte() % 16)
    var sizes = Array(input.take(pieceCount)).map(Int.init)     // empty pieces too, as a read may give
    if !sizes.contains(where: { $0 > 0 }) { sizes = [1] }
    let stream = Array(input.rest())
    warmUp()

    let expected = reference(stream)
    let inPieces = deframe(stream, sizes: sizes)
    let whole = deframe(stream, sizes: [stream.count])
    for (name, result) in [("in pieces", inPieces), ("in one piece", whole)] {
        require(result.packets.count == expected.packets.count,
                "\(name): \(result.packets.count) packets, the reference finds \(expected.packets.count)")
        for (got, want) in zip(result.packets, expected.packets) {
            require(got.type == want.type && got.bytes == want.bytes,
                    "\(name): packet \(got.type) \(got.bytes), the reference has \(want.type) \(want.bytes)")
        }
        require(result.discarded == expected.discarded && result.skipped == expected.skipped,
                "\(name): discarded \(result.discarded) skipped \(result.skipped), the reference \(expected.discarded) and \(expected.skipped)")
    }
    return 0
}

struct Packet { var type: UInt8; var bytes: [UInt8] }
struct Deframed { var packets: [Packet]; var discarded: Int; var skipped: Int }

/// The header's length of a packet of `type` whose bytes after the type byte are `bytes`
/// (nil until the header is in): what every handed-out packet must match.
func declaredLength(type: UInt8, _ bytes: ArraySlice<UInt8>) -> Int? {
    let b = Array(bytes)
    switch type {
    case 0x04: return b.count >= 2 ? 2 + Int(b[1]) : nil                                 // code, length
    case 0x01, 0x03: return b.count >= 3 ? 3 + Int(b[2]) : nil                           // opcode/handle (2), length
    case 0x02: return b.count >= 4 ? 4 + (Int(b[2]) | Int(b[3]) << 8) : nil              // handle (2), length (2)
    case 0x05: return b.count >= 4 ? 4 + ((Int(b[2]) | Int(b[3]) << 8) & 0x3FFF) : nil   // ISO: 14-bit length
    default: return nil
    }
}

/// H4 as the spec has it, written plainly: a type byte (others are dropped), the header, the
/// payload; a packet longer than the deframer keeps is skipped whole.
func reference(_ stream: [UInt8]) -> Deframed {
    var result = Deframed(packets: [], discarded: 0, skipped: 0)
    var index = 0
    while index < stream.count {
        let type = stream[index]
        guard (0x01...0x05).contains(type) else { result.discarded += 1; index += 1; continue }
        var end = index + 1
        var length: Int?
        while length == nil && end < stream.count {
            end += 1
            length = declaredLength(type: type, stream[(index + 1)..<end])
        }
        guard let length else { break }                     // the stream ends inside a header
        if 1 + length > H4Deframer.capacity {
            result.skipped += 1
        } else if index + 1 + length <= stream.count {
            result.packets.append(Packet(type: type, bytes: Array(stream[(index + 1)..<(index + 1 + length)])))
        }
        index += 1 + length
    }
    return result
}

/// Feeds `stream` in pieces of `sizes` (in turn), checking each packet as it comes and that
/// no feed allocates.
func deframe(_ stream: [UInt8], sizes: [Int]) -> Deframed {
    var deframer = H4Deframer()
    // Room for everything up front: recording a packet must not allocate either.
    var types: [UInt8] = []; types.reserveCapacity(stream.count + 1)
    var lengths: [Int] = []; lengths.reserveCapacity(stream.count + 1)
    var bytes: [UInt8] = []; bytes.reserveCapacity(stream.count + 1)
    var bad = ""
    stream.withUnsafeBytes { raw in
        var offset = 0
        var turn = 0
        repeat {
            let count = min(sizes[turn % sizes.count], raw.count - offset)
            turn += 1
            let piece = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count])
            offset += count
            // The first time a path runs, the runtime may build type metadata (once per
            // process): the same piece goes through a copy first, uncounted.
            var copy = deframer
            copy.feed(piece) { _, _ in }
            let allocations = AllocationCounter.allocations {
                deframer.feed(piece) { type, packet in
                    types.append(type)
                    lengths.append(packet.count)
                    bytes.append(contentsOf: packet)
                }
            }
            if allocations != 0 && bad.isEmpty { bad = "feeding \(count) bytes allocated \(allocations) times" }
        } while offset < raw.count
    }
    require(bad.isEmpty, bad)
    var result = Deframed(packets: [], discarded: deframer.discardedBytes, skipped: deframer.skippedPackets)
    var start = 0
    for (type, length) in zip(types, lengths) {
        let packet = Array(bytes[start..<start + length])
        start += length
        require((0x01...0x05).contains(type), "packet of type \(type)")
        require(1 + length <= H4Deframer.capacity, "a packet of \(1 + length) bytes, more than the capacity")
        require(declaredLength(type: type, packet[...]) == length,
                "type \(type) packet of \(length) bytes, its header says \(String(describing: declaredLength(type: type, packet[...])))")
        result.packets.append(Packet(type: type, bytes: packet))
    }
    return result
}

nonisolated(unsafe) var warmedUp = false

/// The runtime builds type metadata on first use: one pass over every kind of packet first.
func warmUp() {
    guard !warmedUp else { return }
    warmedUp = true
    var deframer = H4Deframer()
    let stream: [UInt8] = [0x04, 0x0E, 0x01, 0x00, 0x01, 0x01, 0x20, 0x00, 0x02, 0x01, 0x00, 0x01, 0x00, 0x09,
                           0x03, 0x01, 0x00, 0x00, 0x05, 0x01, 0x00, 0x00, 0x00, 0xFF, 0x02, 0x01, 0x00, 0xFF, 0x0F]
    var seen = 0
    stream.withUnsafeBytes { raw in deframer.feed(raw) { _, _ in seen += 1 } }
}
