extension BurstDecoder {
    /// What a decoder has done so far: the bench's and the listener page's figures of its work
    /// (read through ``BurstDecoder/candidatesDecoded`` and the properties beside it).
    struct Counts {
        /// Audio samples pushed.
        var samplesPushed = 0
        /// Bursts demodulated: one per sync candidate that got past the echo rule, one more for
        /// each second try at the strongest arrival.
        var candidatesDecoded = 0
        /// Likely echoes of the last decoded burst that failed the quick check.
        var echoesRejected = 0
        /// Second tries at the strongest arrival after the first arrival's decode failed.
        var secondArrivalTries = 0
        /// CRC checks: one per demodulated burst that passed the tonal-share gate.
        var framesTried = 0
        /// Candidates demodulated where a kept burst's repeat was due and the sync found none.
        var predictedCandidates = 0
    }
}
