import NearcastCore

/// A room's impulse response in the style of a measured one: the direct sound, then a diffuse
/// tail of Gaussian noise under an exponential envelope that falls 60 dB in RT60.
///
/// How loud the tail is comes from classical room acoustics: the reverberant field equals the
/// direct sound at the critical distance r_c = 0.057·√(Q·V / RT60) (V in m³, Q the source's
/// directivity factor), so at distance r the direct-to-reverberant ratio is (r_c / r)². The
/// tail's echo density builds up over its first milliseconds, as early reflections do.
public struct RoomModel: Sendable, Equatable {
    /// Reverberation time in the modem's band, seconds.
    public var rt60: Double
    /// Speaker-to-listener distance, metres.
    public var distance: Double
    /// Room volume, cubic metres.
    public var volume: Double
    /// Directivity factor of the speaker (2: an omnidirectional source on a wall).
    public var directivity: Double

    public init(rt60: Double, distance: Double, volume: Double, directivity: Double) {
        self.rt60 = rt60
        self.distance = distance
        self.volume = volume
        self.directivity = directivity
    }

    /// Critical distance r_c, metres.
    public var criticalDistance: Double { 0.057 * (directivity * volume / rt60).squareRoot() }
    /// Direct-to-reverberant energy ratio, dB.
    public var directToReverberantDB: Double {
        20 * CoreMath.log(criticalDistance / distance) / CoreMath.log(10)
    }

    /// One random realisation at `sampleRate`, direct path at index 0 with gain 1, long enough
    /// for the tail to fall 60 dB.
    func impulseResponse(sampleRate: Int, generator: inout SplitMix64) -> [Double] {
        let fs = Double(sampleRate)
        let count = Int(rt60 * fs)
        // Energy envelope exp(−t/τ) falls 60 dB in RT60: τ = RT60 / (6·ln 10).
        let tau = rt60 / (6 * CoreMath.log(10))
        let firstReflection = Int(0.002 * fs)     // floor and nearby walls, ~0.7 m longer path
        let buildUp = 0.010 * fs
        var h = [Double](repeating: 0, count: count)
        var tailEnergy = 0.0
        for n in firstReflection..<count {
            let t = Double(n) / fs
            let ramp = min(1, Double(n - firstReflection) / buildUp)
            let value = generator.gaussian() * ramp * CoreMath.exp(-t / (2 * tau))
            h[n] = value
            tailEnergy += value * value
        }
        let wanted = 1 / CoreMath.exp(directToReverberantDB / 10 * CoreMath.log(10))
        let gain = (wanted / tailEnergy).squareRoot()
        for n in firstReflection..<count { h[n] *= gain }
        h[0] = 1
        return h
    }
}
