import NearcastCore

/// The audio output device class: where rendered samples go.
///
/// Implemented by the ALSA playback driver and by its simulated twin (a WAV file paced by the
/// wall clock), so the daemon drives both the same way. `write` blocks like a sound card does:
/// it returns once the device has room for the samples, so the caller is paced by the device.
public protocol AudioOutput: AnyObject {
    /// Frames per second the device runs at.
    var sampleRate: Int { get }
    /// The chunk size, in frames, the device prefers to be written in.
    var periodFrames: Int { get }
    /// Hands mono samples (−1...1) to the device, blocking until it accepts them.
    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioDeviceError)
    /// Waits until everything written has been played, then stops the device.
    func drain() throws(AudioDeviceError)
    /// How the device is doing (a device that fails after opening retries by itself).
    var status: AudioDeviceStatus { get }
}

extension AudioOutput {
    /// A device that cannot fail once open (a file) is always fine.
    public var status: AudioDeviceStatus { AudioDeviceStatus() }
}

/// The audio input device class: where captured samples come from. Implemented by the ALSA
/// capture driver, which runs its own thread; the daemon's loop takes what has arrived once per
/// period and feeds the streaming decoder.
public protocol AudioInput: AnyObject {
    var sampleRate: Int { get }
    var periodFrames: Int { get }
    /// Copies up to `output.count` captured samples not yet taken, without waiting; returns how many.
    func read(into output: UnsafeMutableBufferPointer<Float>) -> Int
    /// How the device is doing.
    var status: AudioDeviceStatus { get }
    /// Stops capturing and closes the device.
    func stop()
}

/// An audio device's state as its driver sees it: what the LEDs show, the underruns (playback)
/// or overruns (capture) recovered so far, and the failure being retried, if any.
public struct AudioDeviceStatus: Sendable, Equatable {
    /// `.ok`, `.missing` (retrying) or `.permissionDenied`; underruns are counted separately
    /// and judged by the caller, who knows what "recently" means.
    public var health: AudioHealth
    /// Underruns (playback) or overruns (capture) recovered with `snd_pcm_recover` since start.
    public var xruns: Int
    /// The failure being retried (nil while the device works).
    public var problem: AudioDeviceError?
    /// Times the device was opened again after a failure.
    public var reopenings: Int

    public init(health: AudioHealth = .ok, xruns: Int = 0, problem: AudioDeviceError? = nil, reopenings: Int = 0) {
        self.health = health
        self.xruns = xruns
        self.problem = problem
        self.reopenings = reopenings
    }
}

/// Why an audio device failed, in the terms of the LED table (docs/design.md).
public enum AudioDeviceError: Error, Equatable, CustomStringConvertible {
    /// The device does not exist (unplugged, wrong name): "audio device missing, retrying".
    case missing(device: String, reason: String)
    /// The process may not open the device: "permission denied on the sound device".
    case permissionDenied(device: String)
    /// The device rejected the stream's parameters.
    case unsupportedConfiguration(device: String, reason: String)
    /// Any other failure, with the device's own words.
    case failed(device: String, reason: String)

    public var description: String {
        switch self {
        case .missing(let device, let reason): return "audio device missing: \(device) (\(reason))"
        case .permissionDenied(let device): return "audio permission denied: \(device)"
        case .unsupportedConfiguration(let device, let reason): return "audio device \(device) rejected the stream: \(reason)"
        case .failed(let device, let reason): return "audio device \(device) failed: \(reason)"
        }
    }
}

extension AudioDeviceError {
    /// What the audio LED shows while this failure is being retried: a device the process may
    /// not open is a permission problem; any other failure leaves the box without that device.
    public var health: AudioHealth {
        if case .permissionDenied = self { return .permissionDenied }
        return .missing
    }
}

extension AudioOutput {
    /// Hands up to `frames` samples from `ring` to the device (blocking as `write` does),
    /// straight from the ring's storage; returns how many.
    @discardableResult
    public func write(from ring: SampleRing, frames: Int) throws(AudioDeviceError) -> Int {
        var done = 0
        while done < frames && !ring.isEmpty {
            done += try ring.withReadableRegion(maximum: frames - done) { (region) throws(AudioDeviceError) -> Int in
                try write(region)
                return region.count
            }
        }
        return done
    }
}
