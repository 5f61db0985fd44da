/// Listens to several bands at once: one ``BurstDecoder`` per band, each fed every sample.
///
/// The bands are 2 kHz apart and each decoder's mixer and decimation filter keep only its own
/// band (the other lies deep in the filter's stopband), so a burst is heard by the decoder of
/// the band it was sent in and reported with that ``DecodedBurst/band``. Listening to both
/// bands costs twice the CPU of one. Like the decoders it holds, it allocates only in `init`.
///
/// Within one `push`, bursts are reported band by band (all of the high band's, then the low
/// band's); a caller that needs them in time order across bands sorts by
/// ``DecodedBurst/startSample``. With pushes of a period (tens of milliseconds) and bursts a
/// second apart, the order is the time order anyway.
///
/// ```swift
/// let decoder = try MultiBandDecoder(sampleRate: 48_000, bands: [.high, .low])
/// decoder.push(chunk) { burst in print(burst.band, burst.token) }
/// ```
public final class MultiBandDecoder {
    /// The bands listened to, in the order their bursts are reported within a push.
    public let bands: [ModemBand]
    /// One decoder per band, in the order of `bands`.
    public let decoders: [BurstDecoder]

    /// Makes a decoder per band in `bands` (each band once, at least one) for audio at `sampleRate`.
    public init(sampleRate: Int, bands: [ModemBand] = ModemBand.allCases,
                configuration: BurstDecoder.Configuration = BurstDecoder.Configuration()) throws(ModemRateError) {
        precondition(!bands.isEmpty, "a MultiBandDecoder needs a band")
        var unique: [ModemBand] = []
        for band in bands where !unique.contains(band) { unique.append(band) }
        var decoders: [BurstDecoder] = []
        for band in unique {
            decoders.append(try BurstDecoder(sampleRate: sampleRate, band: band, configuration: configuration))
        }
        self.bands = unique
        self.decoders = decoders
    }

    /// The sample counts in use.
    public var rate: ModemRate { decoders[0].rate }
    /// Audio samples pushed so far.
    public var samplesPushed: Int { decoders[0].samplesPushed }
    /// Candidates demodulated, all bands together (see ``BurstDecoder/candidatesDecoded``).
    public var candidatesDecoded: Int { decoders.reduce(0) { $0 + $1.candidatesDecoded } }
    /// CRC checks made, all bands together (see ``BurstDecoder/framesTried``).
    public var framesTried: Int { decoders.reduce(0) { $0 + $1.framesTried } }
    /// Combinations tried and tokens found by combining, all bands together (see
    /// ``BurstDecoder/combinedTries``).
    public var combinedTries: Int { decoders.reduce(0) { $0 + $1.combinedTries } }
    public var combinedDecodes: Int { decoders.reduce(0) { $0 + $1.combinedDecodes } }

    /// Feeds audio samples to every band's decoder; calls `onBurst` for each token found.
    public func push(_ samples: UnsafeBufferPointer<Float>, _ onBurst: (DecodedBurst) -> Void) {
        // By index: a debug build allocates an iterator for `for decoder in decoders` (measured
        // by ModemAllocationTests), a range it does not.
        for index in 0..<decoders.count { decoders[index].push(samples, onBurst) }
    }

    /// Flushes every band's pipeline (end of a file).
    public func finish(_ onBurst: (DecodedBurst) -> Void) {
        for index in 0..<decoders.count { decoders[index].finish(onBurst) }
    }
}
