/// The RIFF/WAVE container: building a header and reading one, as pure byte work.
///
/// Nearcast writes 16-bit PCM or 32-bit IEEE float, and reads either of them with any number of
/// channels (it keeps the first), also inside WAVE_FORMAT_EXTENSIBLE. A `data` chunk whose size
/// runs past the end of the file (a recorder that was killed before it fixed the header) is read
/// up to the end of the file.
public struct WAVFormat: Sendable, Equatable {
    /// How samples are stored.
    public enum Encoding: Sendable, Equatable {
        case pcm16
        case float32

        /// Bytes per sample of one channel.
        public var bytesPerSample: Int { self == .pcm16 ? 2 : 4 }
    }

    public var encoding: Encoding
    public var sampleRate: Int
    public var channels: Int

    public init(encoding: Encoding, sampleRate: Int, channels: Int = 1) {
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes per frame (one sample of every channel).
    public var bytesPerFrame: Int { encoding.bytesPerSample * channels }

    /// Size of the header ``header(dataBytes:)`` writes, in bytes.
    public static let headerSize = 44

    /// A 44-byte canonical header for `dataBytes` bytes of samples.
    public func header(dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize)
        func append32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func append16(_ v: UInt16) { bytes.append(UInt8(truncatingIfNeeded: v)); bytes.append(UInt8(v >> 8)) }
        let data = UInt32(clamping: dataBytes)
        bytes += Array("RIFF".utf8)
        append32(data &+ 36)
        bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8)
        append32(16)
        append16(encoding == .pcm16 ? 1 : 3)
        append16(UInt16(channels))
        append32(UInt32(sampleRate))
        append32(UInt32(sampleRate * bytesPerFrame))
        append16(UInt16(bytesPerFrame))
        append16(UInt16(encoding.bytesPerSample * 8))
        bytes += Array("data".utf8)
        append32(data)
        return bytes
    }

    /// Where the samples are in a file, found by ``parse(_:fileSize:)``.
    public struct Layout: Sendable, Equatable {
        public var format: WAVFormat
        /// Byte offset of the first sample.
        public var dataOffset: Int
        /// Bytes of samples (whole frames only).
        public var dataBytes: Int
        /// Number of frames.
        public var frames: Int { dataBytes / format.bytesPerFrame }
    }

    /// Parses the chunks at the start of a WAV file. `prefix` must hold every byte up to the
    /// start of the `data` chunk's samples (the first 64 KiB is plenty for real files);
    /// `fileSize` is the whole file's size.
    public static func parse(_ prefix: [UInt8], fileSize: Int) throws(WAVError) -> Layout {
        func u32(_ at: Int) -> Int {
            Int(prefix[at]) | Int(prefix[at + 1]) << 8 | Int(prefix[at + 2]) << 16 | Int(prefix[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(prefix[at]) | Int(prefix[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: prefix[at..<at + 4], as: UTF8.self) }

        guard prefix.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw .notWAV }
        var offset = 12
        var format: WAVFormat?
        while offset + 8 <= prefix.count {
            let id = tag(offset)
            let size = u32(offset + 4)
            let body = offset + 8
            switch id {
            case "fmt ":
                guard size >= 16, body + 16 <= prefix.count else { throw .malformed("fmt chunk too short") }
                var code = u16(body)
                let channels = u16(body + 2)
                let rate = u32(body + 4)
                let bits = u16(body + 14)
                if code == 0xFFFE {
                    // WAVE_FORMAT_EXTENSIBLE: the real format code opens the sub-format GUID.
                    guard size >= 40, body + 26 <= prefix.count else {
                        throw .malformed("extensible fmt chunk too short")
                    }
                    code = u16(body + 24)
                }
                guard channels >= 1 else { throw .malformed("fmt chunk declares 0 channels") }
                guard rate > 0 else { throw .malformed("fmt chunk declares sample rate 0") }
                switch (code, bits) {
                case (1, 16): format = WAVFormat(encoding: .pcm16, sampleRate: rate, channels: channels)
                case (3, 32): format = WAVFormat(encoding: .float32, sampleRate: rate, channels: channels)
                default: throw .unsupportedEncoding(code: code, bits: bits)
                }
            case "data":
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                let available = max(0, fileSize - body)
                var bytes = min(size, available)
                bytes -= bytes % format.bytesPerFrame
                return Layout(format: format, dataOffset: body, dataBytes: bytes)
            default:
                break
            }
            offset = body + size + (size & 1)     // chunks are padded to even sizes
        }
        throw format == nil ? .malformed("no fmt chunk") : .malformed("no data chunk")
    }
}

/// Why a WAV file cannot be read.
public enum WAVError: Error, Equatable, CustomStringConvertible {
    case notWAV
    case malformed(String)
    case unsupportedEncoding(code: Int, bits: Int)

    public var description: String {
        switch self {
        case .notWAV: return "not a WAV file (no RIFF/WAVE header)"
        case .malformed(let why): return "malformed WAV file: \(why)"
        case .unsupportedEncoding(let code, let bits):
            return "unsupported WAV encoding (format code \(code), \(bits) bits): use 16-bit PCM or 32-bit float"
        }
    }
}
