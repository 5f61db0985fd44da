import Glibc
import NearcastCore
import Synchronization

/// What an audio thread tells the daemon's loop: the state of its device, shared under a
/// mutex. The thread writes plain values (nothing allocated); the loop reads a snapshot.
final class ALSAStreamReport: Sendable {
    struct Record: Sendable {
        var attempts = 0
        var failure: ALSAFailure?
        var xruns = 0
        var reopenings = 0
        var dropped = 0
    }

    private let record = Mutex(Record())
    /// Set by the owner to end the thread.
    private let stopping = Atomic(false)

    func update(_ body: (inout Record) -> Void) { record.withLock { body(&$0) } }
    var snapshot: Record { record.withLock { $0 } }

    var stopRequested: Bool { stopping.load(ordering: .acquiring) }
    func requestStop() { stopping.store(true, ordering: .releasing) }

    /// The snapshot in the terms of the status model.
    func status(device: String) -> AudioDeviceStatus {
        let now = snapshot
        let problem = now.failure.map { $0.deviceError(device: device) }
        return AudioDeviceStatus(health: problem?.health ?? .ok, xruns: now.xruns, problem: problem,
                                 reopenings: now.reopenings)
    }

    /// Waits (a few ms at a time, up to `seconds`) for the thread's first attempt to open its device,
    /// so that its owner can say at once whether the device is there.
    func waitForFirstAttempt(seconds: Double) {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        while snapshot.attempts == 0 && MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.nanoseconds() + 2_000_000)
        }
    }
}

/// An audio thread's hold on its ALSA device: opens it, notices when it is lost, and retries
/// with a growing backoff (1 s to 30 s) while it is missing, a USB card unplugged for instance,
/// so that the box plays again by itself when it comes back. Lives on the audio thread.
struct ALSADeviceKeeper {
    let configuration: ALSAStreamConfiguration
    let report: ALSAStreamReport
    /// The device while it is open.
    private(set) var pcm: ALSAPCM?
    private var retry = RetryBackoff(first: 1, longest: 30)
    private var xrunsBefore = 0
    private var devicePacer: RealTimePacer
    private var missingPacer: RealTimePacer

    init(configuration: ALSAStreamConfiguration, report: ALSAStreamReport) {
        self.configuration = configuration
        self.report = report
        let rate = configuration.sampleRate
        // A real card blocks first (see RealTimePacer); a missing device's samples are
        // discarded at exactly real time so the daemon's loop keeps its pace.
        devicePacer = RealTimePacer(sampleRate: rate, speed: 1.02,
                                    aheadFrames: configuration.periodFrames * configuration.bufferPeriods)
        missingPacer = RealTimePacer(sampleRate: rate, speed: 1, aheadFrames: 0)
    }

    /// The open device, opened first when it is missing and a retry is due; nil while missing.
    mutating func current() -> ALSAPCM? {
        if pcm == nil && retry.isDue(at: MonotonicClock.seconds()) { attemptOpen() }
        return pcm
    }

    /// Waits out `frames` of real time while the device is missing.
    mutating func waitWhileMissing(_ frames: Int) { missingPacer.pass(frames) }

    /// Records `frames` moved to or from the device (and any xruns it recovered).
    mutating func transferred(_ frames: Int) {
        devicePacer.pass(frames)
        if let pcm {
            let total = xrunsBefore + pcm.xruns
            report.update { if $0.xruns != total { $0.xruns = total } }
        }
    }

    /// The device failed mid-stream (ENODEV when a USB card is pulled): close it and retry.
    mutating func lost(_ failure: ALSAFailure) {
        if let pcm { xrunsBefore += pcm.xruns }
        pcm = nil
        retry.failed(at: MonotonicClock.seconds())
        missingPacer.restart()
        report.update { $0.failure = failure }
    }

    private mutating func attemptOpen() {
        let wasLost = report.snapshot.attempts > 0
        do {
            let opened = try ALSAPCM(configuration)
            pcm = opened
            retry.succeeded()
            devicePacer.restart()
            report.update {
                $0.attempts += 1
                $0.failure = nil
                if wasLost { $0.reopenings += 1 }
            }
        } catch {
            retry.failed(at: MonotonicClock.seconds())
            missingPacer.restart()
            report.update {
                $0.attempts += 1
                $0.failure = error
            }
        }
    }
}

/// What both audio drivers share, the one opening path for either direction: the device's
/// configuration, the hand-over ring, the report and the thread, started and stopped the same
/// way. ``ALSAPlayback`` and ``ALSACapture`` differ only in the loop they run on it.
final class ALSAStreamThread {
    let configuration: ALSAStreamConfiguration
    let ring: SharedSampleRing
    let report = ALSAStreamReport()
    private var thread: DriverThread?

    /// Starts `loop` on a thread named for the direction and waits (up to 5 s) for its first
    /// attempt to open the device, so the owner can say at once whether it is there.
    init(_ configuration: ALSAStreamConfiguration, ringPeriods: Int,
         loop: @escaping @Sendable (SharedSampleRing, ALSAStreamReport, ALSAStreamConfiguration) -> Void) throws(AudioDeviceError) {
        self.configuration = configuration
        ring = SharedSampleRing(capacity: configuration.periodFrames * ringPeriods)
        let ring = self.ring, report = self.report
        do {
            thread = try DriverThread(name: configuration.direction.threadName) { loop(ring, report, configuration) }
        } catch {
            throw .failed(device: configuration.device, reason: "\(error)")
        }
        report.waitForFirstAttempt(seconds: 5)
    }

    /// The device's state in the terms of the status model.
    var status: AudioDeviceStatus { report.status(device: configuration.device) }

    deinit { stop() }

    var handle: pthread_t? { thread?.handle }

    /// Asks the loop to finish, waits for it, and wakes anyone still waiting on the ring.
    func stop() {
        guard let thread else { return }
        report.requestStop()
        thread.join()
        ring.close()
        self.thread = nil
    }
}
