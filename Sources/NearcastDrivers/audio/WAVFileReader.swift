import NearcastCore

/// Reads the first channel of a WAV file as Float samples, chunk by chunk, so files of any
/// length decode in constant memory.
public final class WAVFileReader {
    /// The file's format and where its samples are.
    public let layout: WAVFormat.Layout
    private let file: OpenFile
    private var framesLeft: Int
    private var raw: [UInt8]

    /// Opens `path` and parses its header. Errors name the file.
    public init(path: String) throws(FileFormatError) {
        do {
            file = try OpenFile.forReading(path)
            let size = try file.size()
            let prefix = try file.read(count: min(size, 1 << 16))
            layout = try WAVFormat.parse(prefix, fileSize: size)
            try file.seek(to: layout.dataOffset)
        } catch let error as SystemError {
            throw FileFormatError(path: path, reason: "\(error.message)")
        } catch let error as WAVError {
            throw FileFormatError(path: path, reason: error.description)
        } catch {
            throw FileFormatError(path: path, reason: "\(error)")
        }
        framesLeft = layout.frames
        raw = []
    }

    /// Reads up to `output.count` samples of channel 0; returns how many (0 at the end).
    public func read(into output: UnsafeMutableBufferPointer<Float>) throws(FileFormatError) -> Int {
        let frames = min(output.count, framesLeft)
        guard frames > 0 else { return 0 }
        let frameBytes = layout.format.bytesPerFrame
        if raw.count < frames * frameBytes { raw = [UInt8](repeating: 0, count: frames * frameBytes) }
        var failure: SystemError?
        let got = raw.withUnsafeMutableBytes { buffer in
            do throws(SystemError) {
                return try file.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<frames * frameBytes]))
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw FileFormatError(path: file.path, reason: failure.message) }
        let whole = got / frameBytes
        raw.withUnsafeBytes { bytes in
            for frame in 0..<whole {
                let at = frame * frameBytes
                switch layout.format.encoding {
                case .pcm16:
                    let value = Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
                    output[frame] = Float(value) / 32_768
                case .float32:
                    let bits = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8
                        | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
                    output[frame] = Float(bitPattern: bits)
                }
            }
        }
        framesLeft = whole < frames ? 0 : framesLeft - whole
        return whole
    }
}

/// A file that could not be read or written as expected, with its path.
public struct FileFormatError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
