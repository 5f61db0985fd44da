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
}

/// Why an audio device failed, in the terms of the LED table (DESIGN.md).
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
