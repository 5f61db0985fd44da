/// Token ⇄ FSK symbols: the frame layout, CRC, convolutional code, interleaver and Gray map of
/// ``ModemProfile``.
///
/// Frame bits, most significant first: kind (2) ‖ payload (64) ‖ CRC-16 over both (16) ‖ six
/// zero tail bits. The kind field:
///
/// | value | meaning |
/// |---|---|
/// | 0 | direct token, 8 bytes |
/// | 1 | EID, 8 bytes |
/// | 2 | direct token of 1–7 bytes, padded ISO/IEC 7816-4 style (0x80 then zeros) |
/// | 3 | reserved: never sent, rejected on receipt |
///
/// Coded bit i of 176 goes to position p = (i × 73) mod 176; symbol p / 4 carries it as bit
/// p mod 4 (most significant first) of a 4-bit value, and the tone sent is that value's Gray
/// code, so neighbouring tones differ in one bit.
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

    /// Encodes `token` into ``ModemProfile/symbolCount`` tone indices (0...15) in `symbols`.
    public static func encode(_ token: Token, into symbols: UnsafeMutableBufferPointer<UInt8>) {
        encode(frameBits: frameBits(for: token), into: symbols)
    }

    /// Encodes frame bits (tail included, as ``frameBits(for:)`` lays them out) into
    /// ``ModemProfile/symbolCount`` tone indices. The decoder uses it to re-encode a frame that
    /// failed its CRC: most of its bits are still right, so its tones show where the signal is.
    public static func encode(frameBits bits: UInt128, into symbols: UnsafeMutableBufferPointer<UInt8>) {
        precondition(symbols.count >= ModemProfile.symbolCount, "symbol buffer too small")
        let count = ModemProfile.encodedBits
        for index in 0..<ModemProfile.symbolCount { symbols[index] = 0 }
        var state = 0
        for step in 0..<count {
            let bit = Int(truncatingIfNeeded: bits >> UInt128(count - 1 - step)) & 1
            let out = ConvolutionalCode.step(state: state, bit: bit)
            state = out.next
            place(codedBit: out.c0, index: 2 * step, symbols: symbols)
            place(codedBit: out.c1, index: 2 * step + 1, symbols: symbols)
        }
        for index in 0..<ModemProfile.symbolCount {
            symbols[index] = gray(symbols[index])
        }
    }

    /// Where coded bit `index` sits: (symbol, bit within the symbol, 0 = most significant).
    @inlinable
    public static func position(ofCodedBit index: Int) -> (symbol: Int, bit: Int) {
        let p = (index * ModemProfile.interleaverMultiplier) % ModemProfile.codedBits
        return (p / ModemProfile.bitsPerSymbol, p % ModemProfile.bitsPerSymbol)
    }

    private static func place(codedBit: Int, index: Int, symbols: UnsafeMutableBufferPointer<UInt8>) {
        let (symbol, bit) = position(ofCodedBit: index)
        symbols[symbol] |= UInt8(codedBit << (ModemProfile.bitsPerSymbol - 1 - bit))
    }

    /// The Gray code of `value`: the tone that carries it.
    @inlinable
    public static func gray(_ value: UInt8) -> UInt8 { value ^ (value >> 1) }

    /// The value a tone carries (inverse Gray code, 4 bits).
    @inlinable
    public static func value(ofTone tone: UInt8) -> UInt8 {
        var value = tone
        value ^= value >> 1
        value ^= value >> 2
        return value & 0x0F
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
