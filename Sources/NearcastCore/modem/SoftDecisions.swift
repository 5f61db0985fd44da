/// The soft decisions of one burst: a log-likelihood ratio per bit of the mother code, from the
/// demodulator's last measured burst to the Viterbi decoder (punctured bits stay 0).
///
/// Allocated once in `init`; `decode` does not allocate.
struct SoftDecisions {
    private var llrs = [Float](repeating: 0, count: ModemProfile.motherCodedBits)

    /// The frame bits of the burst `demodulator` measured last, and its symbol SNR (Es/N0).
    mutating func decode(from demodulator: SoftDemodulator, through viterbi: ViterbiDecoder) -> (bits: UInt128, symbolSNR: Float) {
        let snr = llrs.withUnsafeMutableBufferPointer { demodulator.llrs(into: $0) }
        let decoded = llrs.withUnsafeBufferPointer { viterbi.decode($0) }
        return (decoded.bits, snr)
    }
}
