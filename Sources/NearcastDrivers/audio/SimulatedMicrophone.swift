import NearcastCore

/// The simulated board's microphone: it hears the simulated speaker (``SimulatedAudioOutput``
/// hands it every sample it plays) and gives them to the daemon's loop as ALSA capture would,
/// through ``AudioInput``, so the loop has one path for real and simulated microphones.
/// Listening starts with ``start()`` and ends with ``stop()``; samples played while it is not
/// listening are not heard. Allocation-free after `init`.
///
/// The `microphone-permission` fault makes it hear nothing and report the refusal, as ALSA
/// capture does when the process may not open the device.
public final class SimulatedMicrophone: AudioInput {
    public let sampleRate: Int
    public let periodFrames: Int
    private let ring: SampleRing
    private let faults: SimulatedFaults
    private var listening = false

    init(sampleRate: Int, periodFrames: Int, faults: SimulatedFaults) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.faults = faults
        // The loop takes what was heard once per period; a few periods' room covers a slow one.
        ring = SampleRing(capacity: 8 * periodFrames)
    }

    /// Starts listening (what is played from now on is heard).
    public func start() { listening = true }

    public func stop() {
        listening = false
        ring.discardAll()
    }

    public var status: AudioDeviceStatus {
        faults.contains(.microphonePermission)
            ? AudioDeviceStatus(health: .permissionDenied, problem: .permissionDenied(device: "simulated microphone"))
            : AudioDeviceStatus()
    }

    public func read(into output: UnsafeMutableBufferPointer<Float>) -> Int { ring.read(into: output) }

    func hear(_ samples: UnsafeBufferPointer<Float>) {
        guard listening else { return }
        if faults.contains(.microphonePermission) { return }
        ring.write(samples)
    }

    func hearSilence(_ count: Int) {
        guard listening, !faults.contains(.microphonePermission) else { return }
        ring.writeSilence(count)
    }
}
