/// Soft-decision Viterbi decoder for ``ConvolutionalCode``, terminated in state 0.
///
/// Input: one log-likelihood ratio per mother-code bit, `log P(bit = 1) / P(bit = 0)` (positive
/// means "probably 1"; magnitude is confidence; 0 means erased, as a punctured bit is). Output:
/// the most likely input bits. All storage is allocated once in `init`; `decode` does not
/// allocate.
public final class ViterbiDecoder {
    /// The number of input bits (tail included) this decoder was built for.
    public let steps: Int
    private var metrics: [Float]
    private var nextMetrics: [Float]
    /// One bit per state per step, `wordsPerStep` words a step: which predecessor survived.
    private var decisions: [UInt64]
    private let wordsPerStep: Int
    /// Expected outputs c0·2 + c1 for each (state, input bit), precomputed.
    private let outputs: [UInt8]

    /// Makes a decoder for `steps` input bits.
    public init(steps: Int) {
        let states = ConvolutionalCode.stateCount
        self.steps = steps
        wordsPerStep = (states + 63) / 64
        // Each its own buffer: a copy shares it until the first write, so the first `decode`
        // allocated.
        metrics = Array(repeating: 0, count: states)
        nextMetrics = Array(repeating: 0, count: states)
        decisions = Array(repeating: 0, count: steps * wordsPerStep)
        var table = [UInt8](repeating: 0, count: 2 * states)
        for state in 0..<states {
            for bit in 0...1 {
                let out = ConvolutionalCode.step(state: state, bit: bit)
                table[2 * state + bit] = UInt8(2 * out.c0 + out.c1)
            }
        }
        outputs = table
    }

    /// Decodes `llrs` (2 × `steps` values, mother-code order) into the input bits, packed most
    /// significant first into the low `steps` bits of the result. Also returns the winning
    /// path metric, a measure of how well the received values fit a codeword.
    public func decode(_ llrs: UnsafeBufferPointer<Float>) -> (bits: UInt128, metric: Float) {
        precondition(llrs.count >= 2 * steps, "Viterbi input shorter than its frame")
        precondition(steps <= 128, "decoded bits are packed into a UInt128")
        _ = forward(llrs, along: nil)
        let half = ConvolutionalCode.stateCount / 2
        let words = wordsPerStep
        // Trace back from state 0 (the tail bits return the encoder there).
        var state = 0
        var bits: UInt128 = 0
        for step in stride(from: steps - 1, through: 0, by: -1) {
            let bit = state & 1
            bits |= UInt128(bit) << UInt128(steps - 1 - step)
            let word = decisions[step * words + state / 64]
            let tookUpper = (word >> UInt64(state % 64)) & 1
            state = (state >> 1) + (tookUpper == 1 ? half : 0)
        }
        return (bits, metrics[0])
    }

    /// The smallest add-compare-select gap met along the path of `bits` (as ``decode(_:)``
    /// returned them for the same `llrs`): the winning metric minus that of the best other
    /// codeword ending in state 0, since any other such path last merged with the winner at
    /// some step, where the compare discarded a path at least as good. In the LLRs' units;
    /// ``BurstMemory`` divides it by Σ|LLR| for its acceptance margin. One more forward pass.
    public func pathGap(_ llrs: UnsafeBufferPointer<Float>, bits: UInt128) -> Float {
        precondition(llrs.count >= 2 * steps, "Viterbi input shorter than its frame")
        return forward(llrs, along: bits)
    }

    /// The forward pass: path metrics and decision bits for every step. With `path` (decoded
    /// bits), also the smallest gap between the two candidates of the state that path passes
    /// through, after each step; without, +infinity.
    private func forward(_ llrs: UnsafeBufferPointer<Float>, along path: UInt128?) -> Float {
        let stateCount = ConvolutionalCode.stateCount
        let half = stateCount / 2
        let words = wordsPerStep
        let steps = self.steps
        let unreachable: Float = -1e30
        var smallestGap = Float.infinity
        metrics.withUnsafeMutableBufferPointer { metrics in
            nextMetrics.withUnsafeMutableBufferPointer { next in
                decisions.withUnsafeMutableBufferPointer { decisions in
                    outputs.withUnsafeBufferPointer { outputs in
                        for state in 0..<stateCount { metrics[state] = unreachable }
                        metrics[0] = 0
                        var current = metrics
                        var upcoming = next
                        var pathState = 0
                        for step in 0..<steps {
                            let l0 = llrs[2 * step]
                            let l1 = llrs[2 * step + 1]
                            // The branch metric of each of the four outputs (c0, c1).
                            let branch = (-l0 - l1, -l0 + l1, l0 - l1, l0 + l1)
                            func metric(_ output: UInt8) -> Float {
                                switch output {
                                case 0: return branch.0
                                case 1: return branch.1
                                case 2: return branch.2
                                default: return branch.3
                                }
                            }
                            for word in 0..<words {
                                var bits: UInt64 = 0
                                for offset in 0..<min(64, stateCount - 64 * word) {
                                    // state = (previous << 1 | bit) & (states − 1), so its
                                    // predecessors are state >> 1 and (state >> 1) + half, both
                                    // with input bit state & 1.
                                    let state = 64 * word + offset
                                    let bit = state & 1
                                    let p0 = state >> 1
                                    let p1 = p0 + half
                                    let m0 = current[p0] + metric(outputs[2 * p0 + bit])
                                    let m1 = current[p1] + metric(outputs[2 * p1 + bit])
                                    if m1 > m0 {
                                        upcoming[state] = m1
                                        bits |= UInt64(1) << UInt64(offset)
                                    } else {
                                        upcoming[state] = m0
                                    }
                                }
                                decisions[step * words + word] = bits
                            }
                            if let path {
                                // The state the path reaches after this step, and its compare.
                                let bit = Int(truncatingIfNeeded: path >> UInt128(steps - 1 - step)) & 1
                                pathState = ((pathState << 1) | bit) & (stateCount - 1)
                                let p0 = pathState >> 1
                                let m0 = current[p0] + metric(outputs[2 * p0 + bit])
                                let m1 = current[p0 + half] + metric(outputs[2 * (p0 + half) + bit])
                                smallestGap = min(smallestGap, abs(m1 - m0))
                            }
                            swap(&current, &upcoming)
                        }
                        // After an odd number of swaps the final metrics sit in `next`; copy so
                        // they are always read from `metrics`.
                        if current.baseAddress != metrics.baseAddress {
                            for state in 0..<stateCount { metrics[state] = current[state] }
                        }
                    }
                }
            }
        }
        return smallestGap
    }
}
