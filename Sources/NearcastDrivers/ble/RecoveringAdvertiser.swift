import NearcastCore

/// The box's Bluetooth radio: a controller that may come and go: a USB dongle unplugged, rfkill,
/// the daemon started before the adapter was up, a missing capability fixed by an administrator
/// (or, on the simulated board, a fault switched on from the console). It never stops
/// the daemon: while the controller is unusable the scheduler's requests are remembered, the
/// LED state says why, opening is retried with a growing backoff (1 s to 30 s), and when the
/// controller is back every set is put on the air again as the scheduler last asked.
public final class RecoveringAdvertiser: BLEDevice {
    public static let longestBackoff = 30.0

    public let setCount: Int
    /// What the LEDs show for Bluetooth.
    public private(set) var health = BluetoothHealth.ok
    /// The last failure, for status (nil while everything works).
    public private(set) var problem: String?
    /// The advertising interval in ms, passed to the controller.
    public var intervalMilliseconds: Int {
        didSet { if let inner { inner.intervalMilliseconds = intervalMilliseconds } }
    }
    /// Times the controller was lost and found again.
    public private(set) var recoveries = 0
    private var inner: (any BLEDevice)?
    private let open: () throws(BluetoothError) -> any BLEDevice
    private let log: (String) -> Void
    private var wanted: [(data: AdvertisingData, address: BLEAddress)?]
    private var wantsScanning = false
    /// Called with each LE advertising report event while scanning.
    public var onReport: ((UnsafeRawBufferPointer) -> Void)? {
        didSet { if let inner { inner.onReport = onReport } }
    }
    private var now = 0.0
    private var retry = RetryBackoff(first: 1, longest: RecoveringAdvertiser.longestBackoff)

    /// Opens the controller now if it can; `open` is called again for each retry.
    public init(intervalMilliseconds: Int, log: @escaping (String) -> Void,
                open: @escaping () throws(BluetoothError) -> any BLEDevice) {
        self.intervalMilliseconds = intervalMilliseconds
        self.open = open
        self.log = log
        var failure: BluetoothError?
        do {
            let advertiser = try open()
            advertiser.intervalMilliseconds = intervalMilliseconds
            inner = advertiser
            setCount = advertiser.setCount
        } catch {
            // Without a controller, plan for one legacy set; a controller found later with more
            // sets still serves the publications in turn.
            setCount = 1
            inner = nil
            failure = error
        }
        wanted = Array(repeating: nil, count: setCount)
        if let failure { fail(failure) }
    }

    /// The controller in use, while there is one.
    public var controller: (any BLEDevice)? { inner }

    public func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError) {
        wanted[set] = (data, address)
        guard let inner else { return }
        do { try inner.advertise(set: set, data: data, address: address) } catch { fail(error) }
    }

    public func stop(set: Int) throws(BluetoothError) {
        wanted[set] = nil
        guard let inner else { return }
        do { try inner.stop(set: set) } catch { fail(error) }
    }

    /// Scans (or stops) now if the controller is there, and whenever it comes back.
    public func setScanning(_ on: Bool) {
        wantsScanning = on
        guard let inner else { return }
        do { try inner.setScanning(on) } catch { fail(error) }
    }

    /// Call once per loop with the time in seconds: keeps the controller's sets on, or retries
    /// opening it when it is due.
    public func maintain(now: Double) {
        self.now = now
        if let inner {
            do { try inner.maintain(now: now) } catch { fail(error) }
        } else if retry.isDue(at: now) {
            attempt()
        }
    }

    private func attempt() {
        do {
            let advertiser = try open()
            advertiser.intervalMilliseconds = intervalMilliseconds
            advertiser.onReport = onReport
            inner = advertiser
            if wantsScanning { try advertiser.setScanning(true) }
            if problem != nil {
                recoveries += 1
                log("bluetooth: controller back after: \(problem!); advertising again")
            }
            health = .ok
            problem = nil
            retry.succeeded()
            for set in 0..<min(setCount, advertiser.setCount) {
                guard let entry = wanted[set] else { continue }
                try advertiser.advertise(set: set, data: entry.data, address: entry.address)
            }
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: BluetoothError) {
        let text = "\(error)"
        defer { problem = text }
        if case .refused = error.kind {                         // the controller is there; it disliked one command
            if text != problem { log("error: \(text)") }
            return
        }
        let wait = retry.failed(at: now)
        if text != problem { log("error: \(text); retrying in \(Int(wait)) s") }
        health = error.health
        inner = nil
    }
}

