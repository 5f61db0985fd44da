/// The fixed tables of format 2: which subband each group of each symbol uses, which coded
/// bits the puncturing drops, and where each coded bit is sent. Generated once by
/// `research/modem-lab/tables.py T=60 M=4 G=8 P=22 plan=table K=9 nsym=11` (its output is kept in
/// `research/modem-lab/tables_T60G8.txt`); the tests check the properties they were chosen for.
public enum BurstPlan {
    /// Subband (0..21) of group g in symbol n, at index n·8 + g.
    ///
    /// Least recently used subbands first: none is used in two consecutive symbols, so a bin
    /// rests at least 120 ms (its room tail decays 10-15 dB) before it carries a tone again.
    /// Among 400 random plans this one maps, for any shift of whole bins, the fewest groups onto
    /// another group of the same symbol, which keeps the decoder's time-scale search on the
    /// data tones unambiguous, and puts few tones next to the previous symbol's.
    public static let subbands: [UInt8] = [
        1, 2, 3, 4, 8, 10, 11, 13,
        0, 5, 7, 15, 16, 17, 18, 19,
        6, 9, 10, 12, 13, 14, 20, 21,
        1, 2, 3, 4, 8, 11, 15, 19,
        0, 5, 6, 7, 9, 16, 17, 18,
        2, 4, 8, 10, 12, 13, 14, 21,
        0, 3, 9, 11, 15, 16, 19, 20,
        1, 2, 5, 6, 7, 8, 17, 18,
        3, 4, 10, 11, 12, 13, 14, 21,
        0, 1, 2, 9, 15, 16, 19, 20,
        5, 6, 7, 8, 10, 12, 17, 18,
    ]

    /// Positions (0..179) of the rate-1/2 mother code's output that are not sent: four spread
    /// evenly so the frame fits 11 × 8 × 2 = 176 slots.
    /// (A tuple, not an array: it is read on the encoder's path, which must not allocate.)
    public static let puncturedPositions = (22, 68, 112, 158)

    /// The interleaver: slot j = (n·8 + g)·2 + b (b = 0 the more significant bit of the group's
    /// label) carries coded bit `slotCodedBit[j]` (coded bits count the sent ones, 0..175).
    /// A fixed random permutation: the bits of one code span land in different symbols and
    /// subbands, so one faded tone or one noisy symbol costs scattered bits.
    public static let slotCodedBit: [UInt8] = [
        31, 0, 93, 88, 48, 2, 32, 128, 26, 63, 152, 159, 62, 131, 15, 51,
        78, 134, 6, 135, 110, 76, 92, 103, 136, 160, 58, 60, 115, 66, 29, 70,
        169, 167, 138, 120, 41, 106, 121, 46, 87, 17, 170, 99, 68, 139, 158, 82,
        47, 23, 64, 140, 156, 171, 122, 80, 38, 118, 161, 40, 127, 34, 165, 109,
        44, 105, 36, 89, 73, 148, 129, 7, 91, 14, 69, 173, 53, 150, 123, 98,
        19, 153, 116, 149, 162, 50, 59, 72, 174, 111, 155, 137, 24, 107, 96, 33,
        3, 27, 77, 30, 65, 56, 145, 112, 12, 172, 113, 163, 20, 55, 100, 71,
        94, 126, 166, 52, 108, 1, 74, 151, 124, 28, 57, 42, 144, 117, 147, 81,
        101, 90, 164, 8, 85, 84, 114, 125, 11, 133, 54, 43, 146, 142, 35, 79,
        5, 168, 86, 9, 61, 83, 154, 4, 102, 22, 18, 132, 37, 97, 75, 10,
        143, 25, 119, 45, 95, 49, 175, 39, 67, 104, 13, 16, 130, 21, 141, 157,
    ]

    /// The subband of `group` in `symbol`.
    @inlinable
    public static func subband(symbol: Int, group: Int) -> Int {
        Int(subbands[symbol * ModemProfile.groupCount + group])
    }

    /// The grid bin of tone `tone` (0..3) of a group on `subband`.
    @inlinable
    public static func bin(subband: Int, tone: Int) -> Int {
        subband + ModemProfile.subbandCount * tone
    }

    /// The 2-bit label tone `tone` carries (the Gray map is its own inverse).
    @inlinable
    public static func label(ofTone tone: Int) -> Int {
        tone ^ (tone >> 1)
    }

    /// The tone that carries `label`.
    @inlinable
    public static func tone(ofLabel label: Int) -> Int {
        label ^ (label >> 1)
    }

    /// The phase (in cycles) group g starts every symbol with: πg²/8 (Newman's phases), which
    /// keeps the sum of the 8 tones' peaks low (crest factor 9-11 dB instead of up to 18).
    @inlinable
    public static func groupPhaseCycles(group: Int) -> Double {
        Double(group * group) / Double(2 * ModemProfile.groupCount)
    }
}
