/// Soft-decision Viterbi decoder for ``ConvolutionalCode``, terminated in state 0.
///
/// Input: one log-likelihood ratio per coded bit, `log P(bit = 1) / P(bit = 0)` (positive
/// means "probably 1"; magnitude is confidence; 0 means erased). Output: the most likely input
/// bits. All storage is allocated once in `init`; `decode` does not allocate.
public final class ViterbiDecoder {
    /// The number of input bits (tail included) this decoder was built for.
    public let steps: Int
    private var metrics: [Float]
    private var nextMetrics: [Float]
    /// One bit per state per step: which predecessor survived.
    private var decisions: [UInt64]
    // Expected outputs (c0, c1) for each (state, input bit), precomputed.
    private let outputs: [(Int, Int)]

    /// Makes a decoder for `steps` input bits.
    public init(steps: Int) {
        precondition(ConvolutionalCode.stateCount <= 64, "decisions are packed into 64-bit words")
        self.steps = steps
        metrics = Array(repeating: 0, count: ConvolutionalCode.stateCount)
        nextMetrics = metrics
        decisions = Array(repeating: 0, count: steps)
        var table: [(Int, Int)] = []
        for state in 0..<ConvolutionalCode.stateCount {
            for bit in 0...1 {
                let out = ConvolutionalCode.step(state: state, bit: bit)
                table.append((out.c0, out.c1))
            }
        }
        outputs = table
    }

    /// Decodes `llrs` (2 × `steps` values, coded order) into the input bits, packed most
    /// significant first into the low `steps` bits of the result. Also returns the winning
    /// path metric, a measure of how well the received values fit a codeword.
    public func decode(_ llrs: UnsafeBufferPointer<Float>) -> (bits: UInt128, metric: Float) {
        precondition(llrs.count >= 2 * steps, "Viterbi input shorter than its frame")
        precondition(steps <= 128, "decoded bits are packed into a UInt128")
        let stateCount = ConvolutionalCode.stateCount
        let half = stateCount / 2
        let unreachable: Float = -1e30
        metrics.withUnsafeMutableBufferPointer { metrics in
            nextMetrics.withUnsafeMutableBufferPointer { next in
                decisions.withUnsafeMutableBufferPointer { decisions in
                    outputs.withUnsafeBufferPointer { outputs in
                        for state in 0..<stateCount { metrics[state] = unreachable }
                        metrics[0] = 0
                        var current = metrics
                        var upcoming = next
                        for step in 0..<steps {
                            let l0 = llrs[2 * step]
                            let l1 = llrs[2 * step + 1]
                            var word: UInt64 = 0
                            for state in 0..<stateCount {
                                // state = (previous << 1 | bit) & 63, so its predecessors
                                // are (state >> 1) and (state >> 1) + 32, both with input bit
                                // state & 1.
                                let bit = state & 1
                                let p0 = state >> 1
                                let p1 = p0 + half
                                let o0 = outputs[p0 * 2 + bit]
                                let o1 = outputs[p1 * 2 + bit]
                                let m0 = current[p0] + (o0.0 == 1 ? l0 : -l0) + (o0.1 == 1 ? l1 : -l1)
                                let m1 = current[p1] + (o1.0 == 1 ? l0 : -l0) + (o1.1 == 1 ? l1 : -l1)
                                if m1 > m0 {
                                    upcoming[state] = m1
                                    word |= UInt64(1) << UInt64(state)
                                } else {
                                    upcoming[state] = m0
                                }
                            }
                            decisions[step] = word
                            swap(&current, &upcoming)
                        }
                        // After an even number of swaps `current` is `metrics` again; copy so
                        // the final metrics are always read from `metrics`.
                        if current.baseAddress != metrics.baseAddress {
                            for state in 0..<stateCount { metrics[state] = current[state] }
                        }
                    }
                }
            }
        }
        // Trace back from state 0 (the tail bits return the encoder there).
        var state = 0
        var bits: UInt128 = 0
        for step in stride(from: steps - 1, through: 0, by: -1) {
            let bit = state & 1
            bits |= UInt128(bit) << UInt128(steps - 1 - step)
            let tookUpper = (decisions[step] >> UInt64(state)) & 1
            state = (state >> 1) + (tookUpper == 1 ? half : 0)
        }
        return (bits, metrics[0])
    }
}
