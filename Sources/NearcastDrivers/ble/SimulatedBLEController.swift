import Glibc
import NearcastCore

/// The simulated board's Bluetooth controller: no radio, every change appended to `ble.log`
/// (one line per call: stream seconds, set, address and advertising data in hex), so tests and
/// newcomers can see and parse what a real controller would have sent. While scanning it hears
/// its own sets, one report each per 100 ms of stream time, as a scanner next to the box would.
///
/// A fault switched on in ``SimulatedFaults`` makes it fail as a real controller does: the next
/// call throws the errno the HCI socket gives (ERFKILL, EPERM, ENODEV), opening fails until the
/// fault is off, and ``RecoveringAdvertiser`` retries and restores the sets exactly as it does
/// for hardware.
public final class SimulatedBLEController: BLEDevice {
    public let setCount: Int
    public var intervalMilliseconds: Int
    public var onReport: ((UnsafeRawBufferPointer) -> Void)?
    /// What each set shows now (nil: disabled).
    public private(set) var sets: [(address: BLEAddress, data: AdvertisingData)?]
    private let log: SimulatedLogFile
    private let clock: StreamClock
    private let faults: SimulatedFaults
    private var scanning = false
    private var lastScan = -Double.infinity

    /// "Opens" the controller; fails while a Bluetooth fault is switched on.
    public init(log: SimulatedLogFile, setCount: Int, clock: StreamClock, faults: SimulatedFaults,
                intervalMilliseconds: Int = 100) throws(BluetoothError) {
        precondition(setCount >= 1, "a controller has at least one advertising set")
        self.setCount = setCount
        self.log = log
        self.clock = clock
        self.faults = faults
        self.intervalMilliseconds = intervalMilliseconds
        self.sets = Array(repeating: nil, count: setCount)
        try checkFaults(while: "socket(AF_BLUETOOTH)")
    }

    public func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        try checkFaults(while: "write(HCI LE Set Advertising Data)")
        sets[set] = (address, data)
        try record("set \(set) advertise address \(address) data \(data)")
    }

    public func stop(set: Int) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        guard sets[set] != nil else { return }
        try checkFaults(while: "write(HCI LE Set Advertising Enable)")
        sets[set] = nil
        try record("set \(set) stop")
    }

    public func setScanning(_ on: Bool) throws(BluetoothError) {
        try checkFaults(while: "write(HCI LE Set Scan Enable)")
        scanning = on
    }

    public func maintain(now: Double) throws(BluetoothError) {
        try checkFaults(while: "read(HCI socket)")
        guard scanning, let onReport, now - lastScan >= 0.1 else { return }
        lastScan = now
        for shown in sets {
            guard let shown else { continue }
            let report = LEAdvertisingReport(eventType: 3, isExtended: false, addressType: 1, address: shown.address,
                                             rssi: -50, data: shown.data)
            LEAdvertisingReports.legacyEvent(for: report).withUnsafeBytes { onReport($0) }
        }
    }

    /// Throws, and records the loss once, while a Bluetooth fault is on.
    private func checkFaults(while operation: String) throws(BluetoothError) {
        guard let (code, fault) = faults.bluetoothErrno else { return }
        if sets.contains(where: { $0 != nil }) || scanning {
            sets = Array(repeating: nil, count: setCount)
            scanning = false
            try? record("controller lost (simulated fault \(fault.identifier)): every set off the air")
        }
        throw BluetoothError(SystemError(code: code, operation: operation, subject: "simulated controller (sim fault \(fault.identifier))"))
    }

    private func record(_ line: String) throws(BluetoothError) {
        do { try log.record(clock.seconds, line) } catch { throw BluetoothError(error) }
    }
}
