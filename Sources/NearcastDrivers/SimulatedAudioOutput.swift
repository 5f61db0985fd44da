import Glibc
import NearcastCore

/// The simulated board's speaker: writes what it is given to a WAV file, accepting samples no
/// faster than a sound card would play them (paced by the monotonic clock, with a device-like
/// buffer of a few periods). The twin of ``ALSAAudioOutput``; the daemon cannot tell them apart.
public final class SimulatedAudioOutput: AudioOutput {
    public let sampleRate: Int
    public let periodFrames: Int
    /// Path of the WAV file being written.
    public let path: String
    /// Frames the simulated device buffers ahead of real time (like ALSA's buffer).
    public let bufferFrames: Int
    private let writer: WAVFileWriter
    private var startNanoseconds: Int64?

    /// Creates (or truncates) the WAV file at `path`.
    public init(path: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int = 4) throws(AudioDeviceError) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.path = path
        self.bufferFrames = periodFrames * bufferPeriods
        do {
            writer = try WAVFileWriter(path: path, format: WAVFormat(encoding: .pcm16, sampleRate: sampleRate))
        } catch {
            throw Self.deviceError(error, path: path)
        }
    }

    /// Frames accepted so far.
    public var framesWritten: Int { writer.framesWritten }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioDeviceError) {
        let start = startNanoseconds ?? MonotonicClock.nanoseconds()
        startNanoseconds = start
        do {
            try writer.write(samples)
        } catch {
            throw Self.deviceError(error, path: path)
        }
        // A device with `bufferFrames` of buffer accepts frame n at start + (n − buffer)/rate.
        let ahead = writer.framesWritten - bufferFrames
        if ahead > 0 {
            let deadline = start + Int64(ahead) * 1_000_000_000 / Int64(sampleRate)
            MonotonicClock.sleep(until: deadline)
        }
    }

    public func drain() throws(AudioDeviceError) {
        if let start = startNanoseconds {
            MonotonicClock.sleep(until: start + Int64(writer.framesWritten) * 1_000_000_000 / Int64(sampleRate))
        }
        do { try writer.close() } catch { throw Self.deviceError(error, path: path) }
    }

    private static func deviceError(_ error: SystemError, path: String) -> AudioDeviceError {
        switch error.code {
        case EACCES, EPERM, EROFS: return .permissionDenied(device: path)
        case ENOENT, ENOTDIR: return .missing(device: path, reason: error.message)
        default: return .failed(device: path, reason: error.description)
        }
    }
}
