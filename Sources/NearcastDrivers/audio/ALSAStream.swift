import Glibc

/// What ``ALSAPlayback`` and ``ALSACapture`` are alike: an ALSA device opened along one path
/// (its ``ALSAStreamConfiguration``, a thread of its own that opens it and reopens it when it is
/// lost, a hand-over ring), named and reported the same way. The subclasses add only their
/// direction's loop and the protocol they serve (``AudioOutput``, ``AudioInput``). A base class
/// rather than a protocol extension, because the members must be public witnesses of those
/// public protocols while the thread they read stays internal.
public class ALSAStream {
    let stream: ALSAStreamThread

    /// Starts `loop` on the direction's thread and waits (up to 5 s) for its first attempt to
    /// open the device. A device that is not there is not an error here: `status` reports it
    /// and the thread retries.
    init(_ configuration: ALSAStreamConfiguration, ringPeriods: Int,
         loop: @escaping @Sendable (SharedSampleRing, ALSAStreamReport, ALSAStreamConfiguration) -> Void) throws(AudioDeviceError) {
        stream = try ALSAStreamThread(configuration, ringPeriods: ringPeriods, loop: loop)
    }

    /// The device's ALSA name.
    public var device: String { stream.configuration.device }
    public var sampleRate: Int { stream.configuration.sampleRate }
    public var periodFrames: Int { stream.configuration.periodFrames }
    /// How the device is doing (a device that fails after opening retries by itself).
    public var status: AudioDeviceStatus { stream.status }
    /// The audio thread, for tests that count its allocations.
    public var threadHandle: pthread_t? { stream.handle }
}
