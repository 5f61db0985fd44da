import NearcastCore
import NearcastDrivers
import NearcastNearby

/// Renders one audio period: finishes a burst begun in an earlier one, plays a requested test
/// burst, runs the scheduler over the period and carries out its actions: audio bursts into the
/// encoder at their exact sample, advertising changes on the radio at their stream time. What
/// happened is kept as log lines, written by ``flush(_:)`` once the period is handed to the
/// device (formatting allocates; the rendering does not).
final class ActionPerformer {
    private let encoder: MultiBandEncoder
    private let radio: RecoveringAdvertiser
    private let clock: StreamClock
    private let manager: MessageManager
    private let progress: LoopProgress
    private let advertising: AdvertisingSettings
    private let sampleRate: Int
    private var events: [String] = []
    /// `audio test` asked for a calibration burst: played once no burst is under way.
    private var testBurstPending = false
    /// `audio sweep`: the field check's sequence, played once no burst is under way; the
    /// scheduler's bursts wait while it plays (they would share the encoder, and the sweep).
    private let fieldCheck: FieldCheckPlayer
    private var sweepPending = false
    /// `audio sweep every N`: the stream sample at which the next sweep is asked for, and the
    /// interval, both in samples; nil when off.
    private var sweepInterval: Int?
    private var nextSweepAt = 0

    init(encoder: MultiBandEncoder, devices: Devices, manager: MessageManager, progress: LoopProgress, advertising: AdvertisingSettings) {
        self.encoder = encoder
        self.radio = devices.radio
        self.clock = devices.clock
        self.manager = manager
        self.progress = progress
        self.advertising = advertising
        self.sampleRate = progress.sampleRate
        fieldCheck = FieldCheckPlayer(sampleRate: progress.sampleRate)
        events.reserveCapacity(64)
    }

    /// Plays the field check's sequence as soon as no burst is under way (`audio sweep`).
    func requestSweep() { sweepPending = true }

    /// Plays the sequence every `seconds` from now on (nil: no more); the first at once.
    func repeatSweep(everySeconds seconds: Int?) {
        sweepInterval = seconds.map { $0 * sampleRate }
        nextSweepAt = 0
        progress.sweepEverySeconds = seconds
    }

    /// Plays one calibration burst as soon as no other burst is under way (`audio test`).
    func requestTestBurst() { testBurstPending = true }

    /// The calibration burst `audio test` plays: the direct token "test".
    static let testToken = Token(kind: .direct, packed: 0x7465_7374, count: 4)!

    /// Renders the period starting at stream sample `position` into `span` (zeroed first).
    func render(into span: UnsafeMutableBufferPointer<Float>, at position: Int) {
        span.update(repeating: 0)
        var carried: Int
        if fieldCheck.isPlaying {
            // The sequence renders its own bursts through the encoder.
            carried = fieldCheck.render(into: span, encoder: encoder)
            if fieldCheck.isPlaying { carried = span.count }
        } else {
            carried = encoder.render(into: span)
        }
        if let interval = sweepInterval, position >= nextSweepAt {
            sweepPending = true
            nextSweepAt = position + interval
        }
        if sweepPending && encoder.isFinished && !fieldCheck.isPlaying && carried < span.count {
            sweepPending = false
            fieldCheck.start()
            let written = fieldCheck.render(into: UnsafeMutableBufferPointer(rebasing: span[carried...]), encoder: encoder)
            events.append("[\(Self.stamp(seconds(position + carried)))] audio sweep: the field check's sequence "
                          + "(\(Formatting.fixed(Double(FieldCheckSignal.totalSamples(rate: encoder.rate)) / Double(sampleRate), decimals: 2)) s)")
            carried = fieldCheck.isPlaying ? span.count : carried + written
        }
        if testBurstPending && encoder.isFinished && !fieldCheck.isPlaying {
            testBurstPending = false
            encoder.start(Self.testToken)
            encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[carried...]))
            events.append("[\(Self.stamp(seconds(position + carried)))] audio test burst (direct \(Self.testToken.hex))")
        }
        manager.tick(at: Int64(position), count: span.count) { action in
            perform(action, span: span, position: position, carried: carried)
        }
    }

    private func perform(_ action: ScheduleAction, span: UnsafeMutableBufferPointer<Float>, position: Int, carried: Int) {
        switch action {
        case .audioBurst(let slot, let token, let at):
            guard !fieldCheck.isPlaying else {
                progress.burstsLeftOutForSweeps += 1
                events.append("[\(Self.stamp(seconds(Int(at))))] \(slot): audio burst left out while the field check plays")
                return
            }
            let offset = max(Int(at) - position, carried)
            encoder.start(token)
            encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[offset...]))
            progress.bursts += 1
            events.append(burstLine(at: position + offset, token: token, slot: slot))
        case .advertise(let set, let slot, let token, let address, let at):
            clock.seconds = seconds(Int(at))
            do {
                try radio.advertise(set: set, data: EddystoneFrame.advertisingData(for: token, txPower: advertising.txPower), address: address)
                events.append("[\(Self.stamp(seconds(Int(at))))] ble set \(set) \(token.kind) \(token.hex) from \(address) (\(slot))")
            } catch {
                events.append("error: BLE set \(set): \(error)")
            }
        case .stopAdvertising(let set, let at):
            clock.seconds = seconds(Int(at))
            do { try radio.stop(set: set) } catch { events.append("error: BLE set \(set): \(error)") }
            events.append("[\(Self.stamp(seconds(Int(at))))] ble set \(set) stopped")
        case .tokenChanged(let slot, let token, let at):
            events.append("[\(Self.stamp(seconds(Int(at))))] \(slot) switched to EID \(token.hex) (audio and BLE, new BLE address)")
        case .tokenNeeded:
            break
        }
    }

    /// Logs what the last periods did.
    func flush(_ log: (String) -> Void) {
        for line in events { log(line) }
        events.removeAll(keepingCapacity: true)
    }

    /// Takes every advertising set off the air (at shutdown) at stream sample `position`.
    func stopAdvertising(at position: Int, log: (String) -> Void) {
        clock.seconds = seconds(position)
        for set in 0..<radio.setCount {
            do { try radio.stop(set: set) } catch { log("warning: BLE set \(set): \(error)") }
        }
    }

    private func seconds(_ sample: Int) -> Double { Double(sample) / Double(sampleRate) }

    /// A stream time as the log shows it: `[    1.440 s]`'s inside.
    static func stamp(_ seconds: Double) -> String {
        "\(Formatting.pad(Formatting.fixed(seconds, decimals: 3), 9)) s"
    }

    private func burstLine(at sample: Int, token: Token, slot: PublicationSlot) -> String {
        let schedule = manager.schedule
        var line = "[\(Self.stamp(seconds(sample)))] burst #\(progress.bursts) audio \(token.kind) \(token.hex) (\(slot)) "
            + "beacon-time \(schedule.beaconTime(at: Int64(sample)))"
        if let status = schedule.status(of: slot), let next = status.nextSwitchAt {
            line += " (next EID at \(Formatting.fixed(seconds(Int(next)), decimals: 1)) s)"
        }
        return line
    }
}
