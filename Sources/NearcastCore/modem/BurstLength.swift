/// How many data symbols a burst carries: format 2's 11 (0.72 s on the air), or fewer, to
/// measure how the modem's bars fall with airtime (`nearcast bench modem --symbols N`). The
/// frame, the code and the CRC are the same at every length; a shorter burst sends fewer of the
/// code's 180 bits.
///
/// Only the standard length is a format: a box sends and a listener decodes 11 symbols. The
/// others exist for the bench, with tables derived rather than chosen: the first N rows of the
/// hopping plan (still never a subband in two consecutive symbols), the punctured positions
/// spread evenly over the 180 (`⌊p·P/180⌋` steps), and a multiplicative interleaver (slot j
/// carries coded bit 37·j mod 16N). Format 2's own tables were chosen among hundreds of
/// candidates (research/modem-lab/REPORT.md); these were not, so a shorter length's figures are
/// what that length gets without such a search, not the best it could get.
public struct BurstLength: Sendable, Equatable {
    /// Data symbols of 60 ms.
    public let symbolCount: Int

    /// Format 2: 11 symbols, 0.72 s with the chirp pair.
    public static let standard = BurstLength(uncheckedSymbols: ModemProfile.symbolCount)
    /// The shortest the bench measures: 6 symbols carry 96 of the 180 code bits (rate 0.94),
    /// about where a K = 9 code stops correcting anything.
    public static let shortestSymbols = 6

    /// `symbols` data symbols, 6 to 11; nil otherwise.
    public init?(symbols: Int) {
        guard (Self.shortestSymbols...ModemProfile.symbolCount).contains(symbols) else { return nil }
        symbolCount = symbols
    }

    private init(uncheckedSymbols: Int) { symbolCount = uncheckedSymbols }

    /// Coded bits sent: one per (symbol, group, bit) slot.
    public var codedBits: Int { symbolCount * ModemProfile.groupCount * ModemProfile.bitsPerGroup }

    /// Mother-code bits left out.
    public var puncturedCount: Int { ModemProfile.motherCodedBits - codedBits }

    /// Whether mother-code output `position` (0..179) is not sent.
    @inlinable
    public func isPunctured(_ position: Int) -> Bool {
        if symbolCount == ModemProfile.symbolCount {
            let dropped = BurstPlan.puncturedPositions
            return position == dropped.0 || position == dropped.1 || position == dropped.2 || position == dropped.3
        }
        let total = ModemProfile.motherCodedBits, count = puncturedCount
        return (position + 1) * count / total != position * count / total
    }

    /// The coded bit (0 ..< ``codedBits``) slot `slot` carries.
    @inlinable
    public func codedBit(ofSlot slot: Int) -> Int {
        if symbolCount == ModemProfile.symbolCount { return Int(BurstPlan.slotCodedBit[slot]) }
        return slot * 37 % codedBits
    }
}
