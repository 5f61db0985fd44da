import NearcastCore

/// Writes mono samples to a WAV file as they come, keeping the header's sizes current after
/// every write so the file is valid even if the process is killed.
public final class WAVFileWriter {
    public let format: WAVFormat
    private let file: OpenFile
    private var dataBytes = 0
    private var encoded: [UInt8]
    /// Whether the header has been written: a disk full when the file is made leaves it to the
    /// first write that succeeds, so the failure is the device's to report (like every later
    /// write's), not the daemon's reason not to start.
    private var headerWritten = false

    /// Creates (or truncates) `path` and writes its header (or, when the disk refuses it, leaves
    /// it to the next write).
    public init(path: String, format: WAVFormat, capacityFrames: Int = 4096) throws(SystemError) {
        precondition(format.channels == 1, "Nearcast writes mono WAV files")
        self.format = format
        file = try OpenFile.forWriting(path)
        encoded = [UInt8](repeating: 0, count: capacityFrames * format.bytesPerFrame)
        try? writeHeaderIfNeeded()
    }

    /// Frames written so far.
    public var framesWritten: Int { dataBytes / format.bytesPerFrame }

    /// Appends samples (−1...1; PCM is clipped there).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(SystemError) {
        try writeHeaderIfNeeded()
        var index = 0
        while index < samples.count {
            let chunk = min(samples.count - index, encoded.count / format.bytesPerFrame)
            let bytes = encode(UnsafeBufferPointer(rebasing: samples[index..<index + chunk]))
            // Straight from the encode buffer: no copy per period on the audio path. At the data's
            // own offset (pwrite): a write cut short by a full disk leaves the file position
            // where it stopped, and the next write after space returns must still land on the
            // frame boundary after the last whole write.
            var failure: SystemError?
            let offset = WAVFormat.headerSize + dataBytes
            encoded.withUnsafeBytes { raw in
                do throws(SystemError) { try file.write(UnsafeRawBufferPointer(rebasing: raw[0..<bytes]), at: offset) } catch { failure = error }
            }
            if let failure { throw failure }
            dataBytes += bytes
            index += chunk
        }
        try updateHeader()
    }

    /// Fixes the header and closes the file.
    public func close() throws(SystemError) {
        try writeHeaderIfNeeded()
        try updateHeader()
        try file.close()
    }

    private func encode(_ samples: UnsafeBufferPointer<Float>) -> Int {
        encoded.withUnsafeMutableBytes { out in
            switch format.encoding {
            case .pcm16:
                for (i, sample) in samples.enumerated() {
                    let clipped = max(-1, min(1, sample))
                    let value = UInt16(bitPattern: Int16((clipped * 32_767).rounded()))
                    out[2 * i] = UInt8(truncatingIfNeeded: value)
                    out[2 * i + 1] = UInt8(value >> 8)
                }
                return samples.count * 2
            case .float32:
                for (i, sample) in samples.enumerated() {
                    let bits = sample.bitPattern
                    for b in 0..<4 { out[4 * i + b] = UInt8(truncatingIfNeeded: bits >> UInt32(8 * b)) }
                }
                return samples.count * 4
            }
        }
    }

    private func writeHeaderIfNeeded() throws(SystemError) {
        guard !headerWritten else { return }
        let header = format.header(dataBytes: dataBytes)
        try file.write(header[0..<header.count], at: 0)
        headerWritten = true
    }

    private func updateHeader() throws(SystemError) {
        let header = format.header(dataBytes: dataBytes)
        // RIFF size at 4 and data size at 40.
        try file.write(header[4..<8], at: 4)
        try file.write(header[40..<44], at: 40)
    }
}
