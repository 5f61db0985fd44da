import NearcastCore

/// An in-place radix-2 complex FFT of one power-of-two size, for the channel simulator's
/// convolutions and noise calibration (not used on the device).
struct FFT {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]

    init(size: Int) {
        precondition(size > 1 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        var c = [Double](repeating: 0, count: size / 2)
        var s = [Double](repeating: 0, count: size / 2)
        for k in 0..<(size / 2) {
            let angle = -2 * CoreMath.pi * Double(k) / Double(size)
            c[k] = CoreMath.cos(angle)
            s[k] = CoreMath.sin(angle)
        }
        cosines = c
        sines = s
    }

    /// The smallest power of two that is at least `count`.
    static func size(atLeast count: Int) -> Int {
        var size = 2
        while size < count { size <<= 1 }
        return size
    }

    /// Forward transform (e^(−j2πkn/N)); `inverse` runs the unscaled inverse.
    func transform(re: inout [Double], im: inout [Double], inverse: Bool = false) {
        precondition(re.count == size && im.count == size)
        // Bit-reversal permutation.
        var j = 0
        for i in 1..<size {
            var bit = size >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        let sign: Double = inverse ? -1 : 1
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        var length = 2
                        while length <= size {
                            let half = length / 2
                            let stride = size / length
                            var start = 0
                            while start < size {
                                for k in 0..<half {
                                    let wr = cosines[k * stride], wi = sign * sines[k * stride]
                                    let a = start + k, b = a + half
                                    let tr = re[b] * wr - im[b] * wi
                                    let ti = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - tr; im[b] = im[a] - ti
                                    re[a] += tr; im[a] += ti
                                }
                                start += length
                            }
                            length <<= 1
                        }
                    }
                }
            }
        }
    }

    /// The linear convolution of two real signals.
    static func convolve(_ x: [Double], _ h: [Double]) -> [Double] {
        let count = x.count + h.count - 1
        let fft = FFT(size: size(atLeast: count))
        var xr = x + [Double](repeating: 0, count: fft.size - x.count)
        var xi = [Double](repeating: 0, count: fft.size)
        var hr = h + [Double](repeating: 0, count: fft.size - h.count)
        var hi = [Double](repeating: 0, count: fft.size)
        fft.transform(re: &xr, im: &xi)
        fft.transform(re: &hr, im: &hi)
        for k in 0..<fft.size {
            let r = xr[k] * hr[k] - xi[k] * hi[k]
            let i = xr[k] * hi[k] + xi[k] * hr[k]
            xr[k] = r; xi[k] = i
        }
        fft.transform(re: &xr, im: &xi, inverse: true)
        let scale = 1 / Double(fft.size)
        return (0..<count).map { xr[$0] * scale }
    }
}
