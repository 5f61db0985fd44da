/// The K=9, rate-1/2 convolutional code of ``ModemProfile`` (generators 561 and 753 octal).
///
/// The shift register holds the newest bit in its least significant position: after input bit
/// `b` in state `s` (the previous 8 bits), the register is `(s << 1 | b) & 0x1FF` and the next
/// state is its low 8 bits. ``ViterbiDecoder`` walks the same trellis.
public enum ConvolutionalCode {
    /// Number of encoder states, 2^(K-1).
    public static let stateCount = 1 << (ModemProfile.constraintLength - 1)

    /// The two output bits for input `bit` from `state`, and the next state.
    @inlinable
    public static func step(state: Int, bit: Int) -> (c0: Int, c1: Int, next: Int) {
        let register = ((state << 1) | bit) & (2 * stateCount - 1)
        let c0 = (register & Int(ModemProfile.generators.0)).nonzeroBitCount & 1
        let c1 = (register & Int(ModemProfile.generators.1)).nonzeroBitCount & 1
        return (c0, c1, register & (stateCount - 1))
    }
}
