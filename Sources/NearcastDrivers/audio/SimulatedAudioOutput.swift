import Glibc
import NearcastCore

/// The simulated board's speaker: writes what it is given to a WAV file, accepting samples no
/// faster than a sound card would play them (paced by the monotonic clock, with a device-like
/// buffer of a few periods). The twin of ``ALSAPlayback``; the daemon cannot tell them apart.
///
/// Its ``SimulatedMicrophone`` hears what it plays. The simulated faults make it fail as the
/// ALSA driver does: a missing card or a refused open plays silence at the same pace (the real
/// thread discards samples at real time) and says so in ``status``; underruns are counted.
/// A write the file system refuses (a full or read-only disk under the state directory) is the
/// same kind of failure: the samples are dropped at the device's pace, ``status`` names the
/// error, and every later period tries again, so the daemon goes on and recovers by itself.
public final class SimulatedAudioOutput: AudioOutput {
    public let sampleRate: Int
    public let periodFrames: Int
    /// Path of the WAV file being written.
    public let path: String
    /// Frames the simulated device buffers ahead of real time (like ALSA's buffer).
    public let bufferFrames: Int
    /// The microphone next to the speaker: it hears every sample written.
    public let microphone: SimulatedMicrophone
    private let faults: SimulatedFaults
    private let writer: WAVFileWriter
    private var startNanoseconds: Int64?
    private let silence: UnsafeMutableBufferPointer<Float>
    private var xruns = 0
    private var framesSinceUnderrun = 0
    /// Frames the device has taken, written or dropped: its clock.
    private var framesAccepted = 0
    /// The last write's failure, while writes fail.
    private var writeProblem: AudioDeviceError?
    private var recoveries = 0

    /// Creates (or truncates) the WAV file at `path`.
    public init(path: String, sampleRate: Int, periodFrames: Int, bufferPeriods: Int = 4,
                faults: SimulatedFaults = SimulatedFaults()) throws(AudioDeviceError) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.path = path
        self.bufferFrames = periodFrames * bufferPeriods
        self.faults = faults
        self.microphone = SimulatedMicrophone(sampleRate: sampleRate, periodFrames: periodFrames, faults: faults)
        silence = .allocate(capacity: periodFrames)
        silence.initialize(repeating: 0)
        do {
            writer = try WAVFileWriter(path: path, format: WAVFormat(encoding: .pcm16, sampleRate: sampleRate))
        } catch {
            throw Self.deviceError(error, path: path)
        }
    }

    deinit { silence.deallocate() }

    /// What a real card would report under the faults switched on now.
    public var status: AudioDeviceStatus {
        let problem: AudioDeviceError? = faults.contains(.audioPermission) ? .permissionDenied(device: path)
            : faults.contains(.audioMissing) ? .missing(device: path, reason: "simulated fault audio-missing") : writeProblem
        return AudioDeviceStatus(health: problem?.health ?? .ok, xruns: xruns, problem: problem, reopenings: recoveries)
    }

    /// Frames accepted so far.
    public var framesWritten: Int { writer.framesWritten }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioDeviceError) {
        let start = startNanoseconds ?? MonotonicClock.nanoseconds()
        startNanoseconds = start
        var playing = !faults.contains(.audioMissing) && !faults.contains(.audioPermission)
        do {
            if playing {
                try writer.write(samples)
            } else {
                var left = samples.count
                while left > 0 {
                    let step = min(left, silence.count)
                    try writer.write(UnsafeBufferPointer(rebasing: silence[0..<step]))
                    left -= step
                }
            }
            if writeProblem != nil {
                writeProblem = nil
                recoveries += 1
            }
        } catch {
            // Dropped at the device's pace, reported in `status`, tried again next period.
            writeProblem = Self.deviceError(error, path: path)
            playing = false
        }
        framesAccepted += samples.count
        if playing { microphone.hear(samples) } else { microphone.hearSilence(samples.count) }
        if faults.contains(.audioUnderruns) {
            framesSinceUnderrun += samples.count
            if framesSinceUnderrun >= sampleRate / 2 {
                framesSinceUnderrun = 0
                xruns += 1
            }
        }
        // A device with `bufferFrames` of buffer accepts frame n at start + (n − buffer)/rate.
        let ahead = framesAccepted - bufferFrames
        if ahead > 0 {
            let deadline = start + Int64(ahead) * 1_000_000_000 / Int64(sampleRate)
            MonotonicClock.sleep(until: deadline)
        }
    }

    public func drain() throws(AudioDeviceError) {
        if let start = startNanoseconds {
            MonotonicClock.sleep(until: start + Int64(framesAccepted) * 1_000_000_000 / Int64(sampleRate))
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
