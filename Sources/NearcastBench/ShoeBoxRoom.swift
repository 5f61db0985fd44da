import NearcastCore

/// A rectangular room's impulse response by the image-source method (Allen & Berkley 1979):
/// every reflection path is a mirror image of the source, with the walls' reflection
/// coefficient once per bounce, spherical spreading, air absorption and the source's
/// directivity toward the listener as seen from the image.
///
/// The walls all absorb alike, the share that Sabine's formula gives for the room's RT60
/// (α = 0.161·V / (S·RT60), as pyroomacoustics' `inverse_sabine`); air absorbs 0.029 per metre in
/// energy, the value pyroomacoustics applies above 8 kHz, so the band's tail is shorter than
/// the nominal RT60 (about 0.42 s in a "0.6 s" room). Real air absorbs more at 19 kHz (about
/// 0.4 dB/m at 20 °C and 50 % RH, ISO 9613-1): these rooms are, if anything, harsher than real
/// ones. Each image is placed with a 64-tap Kaiser-windowed sinc (flat to 0.46·fs), and every
/// image is summed up to 1.25 × RT60 after the direct sound (0.5 million images in the 0.6 s
/// room).
///
/// Each trial draws a room and positions from the seed: the room's size from `family`, the
/// source 1.0-2.0 m and the listener 0.8-1.8 m high, both at least 0.5 m from every wall,
/// `distance` apart in a random direction. The two rooms of the bar (`family` A and B) were
/// sized so that the direct-to-reverberant ratio matches the bar's: about −8.6 dB at RT60 0.6 s,
/// 3 m and −11 dB at 0.8 s, 5 m, omnidirectional.
public struct ShoeBoxRoom: Sendable, Equatable {
    /// Room sizes a trial draws from, metres.
    public struct Family: Sendable, Equatable {
        public var length: ClosedRange<Double>
        public var width: ClosedRange<Double>
        public var height: ClosedRange<Double>

        /// About 130 m³: the 3 m room of the bar.
        public static let a = Family(length: 6.0...8.0, width: 5.0...6.3, height: 2.8...3.2)
        /// About 260 m³: the 5 m room of the bar, and any distance over 3.5 m.
        public static let b = Family(length: 8.0...11.0, width: 6.0...8.0, height: 3.0...3.8)
    }

    /// How the source radiates.
    public enum Source: Sendable, Equatable {
        /// The same in every direction.
        case omnidirectional
        /// A cardioid (amplitude ½(1 + cos θ)) whose axis is horizontal and turned this many
        /// degrees away from the listener: a speaker whose main lobe points at a wall.
        case cardioid(degreesFromListener: Double)
    }

    /// Reverberation time of the walls (Sabine), seconds.
    public var rt60: Double
    /// Source-listener distance, metres.
    public var distance: Double
    public var source: Source
    /// Room sizes; nil picks A up to 3.5 m and B beyond.
    public var family: Family?

    /// The longest distance the rooms hold with both ends 0.5 m from every wall: room B's
    /// smallest size (8 × 6 m) leaves 8.6 m corner to corner, so a trial always finds positions.
    public static let maximumDistance = 8.0

    /// Speed of sound, m/s (20 °C).
    public static let speedOfSound = 343.0
    /// Energy absorbed by air per metre (pyroomacoustics' coefficient above 8 kHz).
    public static let airAbsorptionPerMetre = 0.029
    /// Taps of the fractional-delay kernel, and its phases.
    static let kernelTaps = 64
    static let kernelPhases = 512

    public init(rt60: Double, distance: Double, source: Source = .omnidirectional, family: Family? = nil) {
        self.rt60 = rt60
        self.distance = distance
        self.source = source
        self.family = family
    }

    /// One drawn room: the impulse response at `sampleRate` with unit energy, the index of the
    /// direct sound in it, and the direct-to-reverberant ratio in dB.
    public struct Realisation: Sendable {
        public var response: [Double]
        public var directIndex: Int
        public var directToReverberantDB: Double
    }

    /// Draws a room and positions from `generator` and computes the response.
    public func realise(sampleRate: Int, generator: inout SplitMix64) -> Realisation {
        precondition(rt60 > 0 && distance > 0 && distance <= Self.maximumDistance,
                     "ShoeBoxRoom: RT60 must be positive and the distance within 0...8 m")
        let family = self.family ?? (distance <= 3.5 ? .a : .b)
        let (size, sourcePosition, listener) = Self.draw(family: family, distance: distance, generator: &generator)
        return realise(size: size, source: sourcePosition, listener: listener, sampleRate: sampleRate)
    }

    /// One drawn room heard `copies` times by a listener holding a phone: the same room and
    /// source, the listener moved 1-5 cm in a random direction before each copy (a random walk
    /// from the drawn position, kept inside the walls' margin). At 19 kHz the wavelength is
    /// 1.8 cm and the diffuse field decorrelates within 2 cm, so each copy meets its own fades.
    public func realiseHeld(copies: Int, sampleRate: Int, generator: inout SplitMix64) -> [Realisation] {
        let family = self.family ?? (distance <= 3.5 ? .a : .b)
        let (size, sourcePosition, start) = Self.draw(family: family, distance: distance, generator: &generator)
        var listener = start
        var responses: [Realisation] = []
        for _ in 0..<copies {
            responses.append(realise(size: size, source: sourcePosition, listener: listener, sampleRate: sampleRate))
            let step = Double.random(in: 0.01...0.05, using: &generator)
            let z = Double.random(in: -1...1, using: &generator)
            let angle = Double.random(in: 0..<(2 * CoreMath.pi), using: &generator)
            let across = (1 - z * z).squareRoot()
            listener = (min(size.0 - 0.5, max(0.5, listener.0 + step * across * CoreMath.cos(angle))),
                        min(size.1 - 0.5, max(0.5, listener.1 + step * across * CoreMath.sin(angle))),
                        min(size.2 - 0.5, max(0.5, listener.2 + step * z)))
        }
        return responses
    }

    /// The response between `sourcePosition` and `listener` in a room of `size` (metres).
    func realise(size: (Double, Double, Double), source sourcePosition: (Double, Double, Double),
                 listener: (Double, Double, Double), sampleRate: Int) -> Realisation {
        let fs = Double(sampleRate)
        let volume = size.0 * size.1 * size.2
        let surface = 2 * (size.0 * size.1 + size.0 * size.2 + size.1 * size.2)
        let absorption = min(0.99, 0.161 * volume / (surface * rt60))
        let reflection = (1 - absorption).squareRoot()
        let duration = 1.25 * rt60
        let reach = Self.speedOfSound * duration + distance
        let lead = Self.kernelTaps / 2
        let directDelay = distance / Self.speedOfSound
        var h = [Double](repeating: 0, count: Int(duration * fs) + 2 * lead + 2)
        let kernel = Self.kernel
        var axis = (1.0, 0.0)
        if case .cardioid(let degrees) = source {
            // The horizontal direction to the listener, turned.
            let dx = listener.0 - sourcePosition.0, dy = listener.1 - sourcePosition.1
            let length = (dx * dx + dy * dy).squareRoot()
            let angle = degrees * CoreMath.pi / 180
            let (c, s) = (CoreMath.cos(angle), CoreMath.sin(angle))
            axis = ((dx * c - dy * s) / length, (dx * s + dy * c) / length)
        }
        var directEnergy = 0.0
        var totalEnergy = 0.0
        let range = (Int(reach / (2 * size.0)) + 1, Int(reach / (2 * size.1)) + 1, Int(reach / (2 * size.2)) + 1)
        for nx in -range.0...range.0 {
            for px in 0...1 {
                let ix = Double(1 - 2 * px) * sourcePosition.0 + 2 * Double(nx) * size.0
                let bx = abs(nx - px) + abs(nx)
                let ddx = listener.0 - ix
                guard abs(ddx) <= reach else { continue }
                for ny in -range.1...range.1 {
                    for py in 0...1 {
                        let iy = Double(1 - 2 * py) * sourcePosition.1 + 2 * Double(ny) * size.1
                        let by = abs(ny - py) + abs(ny)
                        let ddy = listener.1 - iy
                        let horizontal = ddx * ddx + ddy * ddy
                        guard horizontal <= reach * reach else { continue }
                        for nz in -range.2...range.2 {
                            for pz in 0...1 {
                                let iz = Double(1 - 2 * pz) * sourcePosition.2 + 2 * Double(nz) * size.2
                                let ddz = listener.2 - iz
                                let r = (horizontal + ddz * ddz).squareRoot()
                                guard r <= reach else { continue }
                                let bounces = bx + by + abs(nz - pz) + abs(nz)
                                var gain = Self.power(reflection, bounces) / (4 * CoreMath.pi * r)
                                gain *= CoreMath.exp(-0.5 * Self.airAbsorptionPerMetre * r)
                                if case .cardioid = source {
                                    // The direction the real source emitted this path in: the
                                    // image's direction mirrored back once per odd bounce count.
                                    let ex = ddx / r * Double(1 - 2 * px), ey = ddy / r * Double(1 - 2 * py)
                                    gain *= 0.5 * (1 + ex * axis.0 + ey * axis.1)
                                }
                                guard gain != 0 else { continue }
                                let position = (r / Self.speedOfSound - directDelay) * fs + Double(lead)
                                Self.place(gain, at: position, into: &h, kernel: kernel)
                                let energy = gain * gain
                                totalEnergy += energy
                                if bounces == 0 { directEnergy += energy }
                            }
                        }
                    }
                }
            }
        }
        var sum = 0.0
        for value in h { sum += value * value }
        let norm = sum > 0 ? 1 / sum.squareRoot() : 1
        for index in h.indices { h[index] *= norm }
        let reverberant = max(totalEnergy - directEnergy, 1e-30)
        let drr = 10 * CoreMath.log(max(directEnergy, 1e-30) / reverberant) / CoreMath.log(10)
        return Realisation(response: h, directIndex: lead, directToReverberantDB: drr)
    }

    /// Room size, source and listener positions for one trial.
    static func draw(family: Family, distance: Double, generator: inout SplitMix64)
        -> (size: (Double, Double, Double), source: (Double, Double, Double), listener: (Double, Double, Double)) {
        let margin = 0.5
        while true {
            let size = (Double.random(in: family.length, using: &generator),
                        Double.random(in: family.width, using: &generator),
                        Double.random(in: family.height, using: &generator))
            let source = (Double.random(in: margin...(size.0 - margin), using: &generator),
                          Double.random(in: margin...(size.1 - margin), using: &generator),
                          Double.random(in: 1.0...min(2.0, size.2 - margin), using: &generator))
            for _ in 0..<200 {
                let height = Double.random(in: 0.8...min(1.8, size.2 - margin), using: &generator)
                let dz = height - source.2
                guard abs(dz) < distance else { continue }
                let horizontal = (distance * distance - dz * dz).squareRoot()
                let angle = Double.random(in: 0..<(2 * CoreMath.pi), using: &generator)
                let x = source.0 + horizontal * CoreMath.cos(angle)
                let y = source.1 + horizontal * CoreMath.sin(angle)
                if x >= margin && x <= size.0 - margin && y >= margin && y <= size.1 - margin {
                    return (size, source, (x, y, height))
                }
            }
        }
    }

    /// Adds `gain` as a band-limited impulse at fractional index `position` of `h`.
    private static func place(_ gain: Double, at position: Double, into h: inout [Double], kernel: [Double]) {
        let half = kernelTaps / 2
        let whole = Int(position.rounded(.down))
        let phase = Int(((position - Double(whole)) * Double(kernelPhases)).rounded())
        let first = whole - half + 1
        guard first >= 0, first + kernelTaps <= h.count else { return }
        kernel.withUnsafeBufferPointer { k in
            h.withUnsafeMutableBufferPointer { out in
                let row = phase * kernelTaps
                for tap in 0..<kernelTaps { out[first + tap] += gain * k[row + tap] }
            }
        }
    }

    /// sinc(t − frac)·Kaiser(β 8) for every phase (kernelPhases + 1 rows of kernelTaps).
    static let kernel: [Double] = KaiserSinc.polyphaseTable(halfTaps: kernelTaps / 2, phases: kernelPhases,
                                                           cutoff: 0.5, beta: 8)

    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0, factor = base, e = exponent
        while e > 0 {
            if e & 1 == 1 { result *= factor }
            factor *= factor
            e >>= 1
        }
        return result
    }
}
