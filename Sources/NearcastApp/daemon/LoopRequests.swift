/// Something a console asks of the daemon's loop, which acts on it between two periods.
enum LoopRequest: Equatable {
    /// `restart`: stop cleanly and start the process again.
    case restart
    /// `debug stall N`: block the loop for N seconds once the console has replied, as a hung
    /// loop would (so a technician, and the watchdog test, can see systemd's watchdog act).
    case stall(seconds: Int)
    /// `audio test`: play one calibration burst.
    case testBurst
    /// `audio sweep`: play the field check's sequence once.
    case sweep
    /// `audio sweep every N|off`: play it every N seconds, or no more (nil).
    case sweepEvery(seconds: Int?)
}

/// The requests the consoles leave for the loop, in the order made; the loop drains them once
/// a period. (A queue of values rather than flags on a shared object: a request has one owner
/// once posted, and a new kind is one enum case and the loop's one place that acts on it.)
final class LoopRequests {
    static let maximumStall = 60
    private var queue: [LoopRequest] = []

    init() { queue.reserveCapacity(8) }

    func post(_ request: LoopRequest) { queue.append(request) }

    /// The oldest request not yet taken, nil when there is none.
    func next() -> LoopRequest? { queue.isEmpty ? nil : queue.removeFirst() }
}
