import NearcastNearby

/// How far the daemon's loop has got: its stream position in samples and the bursts played.
/// Written by the loop (and the ``ActionPerformer``), read by the console's views and clocks.
final class LoopProgress {
    let sampleRate: Int
    /// Stream position of the loop, in samples.
    var position = 0
    /// Bursts played so far.
    var bursts = 0
    /// The interval of `audio sweep every N`, seconds; nil when the box is not repeating it.
    var sweepEverySeconds: Int?
    /// Scheduled bursts left out while the field check's sequence played.
    var burstsLeftOutForSweeps = 0

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// The daemon's clock for the console (PIN delays, idle logout), in milliseconds of audio played.
    var nowMilliseconds: Int64 { Int64(position) * 1000 / Int64(sampleRate) }

    /// Seconds the daemon has been broadcasting.
    var uptime: Double { Double(position) / Double(sampleRate) }
}

extension MessageManager {
    /// Beacon time at the loop's position.
    func beaconTime(at progress: LoopProgress) -> UInt32 { schedule.beaconTime(at: Int64(progress.position)) }
}
