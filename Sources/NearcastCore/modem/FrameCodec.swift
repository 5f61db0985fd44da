/// Token ⇄ tones: the frame layout, CRC, convolutional code, puncturing, interleaver and Gray
/// map of ``ModemProfile`` and ``BurstPlan``.
///
/// Frame bits, most significant first: kind (2) ‖ payload (64) ‖ CRC-16 over both (16) ‖ eight
/// zero tail bits. The kind field:
///
/// | value | meaning |
/// |---|---|
/// | 0 | direct token, 8 bytes |
/// | 1 | EID, 8 bytes |
/// | 2 | direct token of 1–7 bytes, padded ISO/IEC 7816-4 style (0x80 then zeros) |
/// | 3 | reserved: never sent, rejected on receipt |
///
/// The 90 frame bits make 180 mother-code bits; the four at ``BurstPlan/puncturedPositions``
/// are dropped and the remaining 176 ("coded bits") go to the slots ``BurstPlan/slotCodedBit``
/// names: slot (n·8 + g)·2 + b is bit b (0 = more significant) of the label of group g in
/// symbol n, and the tone sent is that label's Gray code.
public enum FrameCodec {
    static let directFull: UInt128 = 0
    static let eidKind: UInt128 = 1
    static let directPadded: UInt128 = 2

    /// The frame's bits for `token`, tail included, in the low ``ModemProfile/encodedBits``.
    public static func frameBits(for token: Token) -> UInt128 {
        let kind: UInt128
        var payload = token.packed
        switch token.kind {
        case .eid:
            kind = eidKind
        case .direct where token.count == 8:
            kind = directFull
        case .direct:
            kind = directPadded
            let padBytes = 8 - token.count
            payload = (payload << UInt64(padBytes * 8)) | (UInt64(0x80) << UInt64((padBytes - 1) * 8))
        }
        let header = kind << UInt128(ModemProfile.payloadBits) | UInt128(payload)
        let headerBits = ModemProfile.kindBits + ModemProfile.payloadBits
        let crc = CRC16.checksum(bits: header, count: headerBits)
        let frame = header << UInt128(ModemProfile.crcBits) | UInt128(crc)
        return frame << UInt128(ModemProfile.tailBits)
    }

    /// Encodes `token` into the tone (0...3) of every group: ``ModemProfile/symbolCount`` ×
    /// ``ModemProfile/groupCount`` values, symbol-major, in `tones`.
    public static func encode(_ token: Token, into tones: UnsafeMutableBufferPointer<UInt8>, length: BurstLength = .standard) {
        encode(frameBits: frameBits(for: token), into: tones, length: length)
    }

    /// Encodes frame bits (tail included, as ``frameBits(for:)`` lays them out) into the tone of
    /// every group (see ``encode(_:into:)``).
    public static func encode(frameBits bits: UInt128, into tones: UnsafeMutableBufferPointer<UInt8>,
                              length: BurstLength = .standard) {
        let groups = length.symbolCount * ModemProfile.groupCount
        precondition(tones.count >= groups, "tone buffer too small")
        for index in 0..<groups { tones[index] = 0 }
        let count = ModemProfile.encodedBits
        var state = 0
        var coded = 0
        let inverse = SlotOfCodedBit(length)
        for step in 0..<count {
            let bit = Int(truncatingIfNeeded: bits >> UInt128(count - 1 - step)) & 1
            let out = ConvolutionalCode.step(state: state, bit: bit)
            state = out.next
            // (Not a nested function: one capturing `coded` would box it on the heap in a debug build.)
            for half in 0..<2 where !length.isPunctured(2 * step + half) {
                let slot = inverse[coded]
                let group = slot / ModemProfile.bitsPerGroup
                let shift = ModemProfile.bitsPerGroup - 1 - slot % ModemProfile.bitsPerGroup
                tones[group] |= UInt8((half == 0 ? out.c0 : out.c1) << shift)
                coded += 1
            }
        }
        for index in 0..<groups {
            tones[index] = UInt8(BurstPlan.tone(ofLabel: Int(tones[index])))
        }
    }

    /// Whether mother-code output `position` (0..179) is dropped by format 2's puncturing.
    @inlinable
    public static func isPunctured(_ position: Int) -> Bool { BurstLength.standard.isPunctured(position) }

    /// The slot of each coded bit, the interleaver's inverse, built on the stack.
    struct SlotOfCodedBit {
        private var slots = FixedArray<Tuple256<UInt8>, UInt8>(repeating: 0)

        init(_ length: BurstLength) {
            for slot in 0..<length.codedBits {
                slots[length.codedBit(ofSlot: slot)] = UInt8(slot)
            }
        }

        subscript(coded: Int) -> Int { Int(slots[coded]) }
    }

    /// Parses decoded frame bits (tail included) into a token; nil when the CRC fails, the
    /// kind is reserved, the tail is not zero or the padding is malformed.
    public static func token(fromFrameBits bits: UInt128) -> Token? {
        let tailMask = (UInt128(1) << UInt128(ModemProfile.tailBits)) - 1
        guard bits & tailMask == 0 else { return nil }
        let frame = bits >> UInt128(ModemProfile.tailBits)
        let crc = UInt16(truncatingIfNeeded: frame)
        let header = frame >> UInt128(ModemProfile.crcBits)
        let headerBits = ModemProfile.kindBits + ModemProfile.payloadBits
        guard header >> UInt128(headerBits) == 0,
              CRC16.checksum(bits: header, count: headerBits) == crc else { return nil }
        let kind = header >> UInt128(ModemProfile.payloadBits)
        let payload = UInt64(truncatingIfNeeded: header)
        switch kind {
        case directFull:
            return Token(kind: .direct, packed: payload, count: 8)
        case eidKind:
            return Token(kind: .eid, packed: payload, count: 8)
        case directPadded:
            // 0x80 then zero bytes at the end; at least one payload byte before it.
            let trailingZeroBytes = payload.trailingZeroBitCount / 8
            guard trailingZeroBytes < 7 else { return nil }
            let marker = UInt8(truncatingIfNeeded: payload >> UInt64(trailingZeroBytes * 8))
            guard marker == 0x80 else { return nil }
            let count = 8 - trailingZeroBytes - 1
            return Token(kind: .direct, packed: payload >> UInt64((8 - count) * 8), count: count)
        default:
            return nil
        }
    }
}
