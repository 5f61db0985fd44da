/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea & Flood 2014).
///
/// The core never reads entropy or a clock: randomness it needs (the moment an EID switches
/// within its window, jitter) comes from a generator the caller seeds, so the same seed replays
/// the same schedule in tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
