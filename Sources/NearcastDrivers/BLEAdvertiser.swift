import NearcastCore

/// What a BLE advertiser does for the scheduler: show data on an advertising set from a random
/// address, or take a set off the air. The HCI driver runs the Core spec's command sequence;
/// the simulated twin records the same calls.
public protocol BLEAdvertiser: AnyObject {
    /// Advertising sets the controller offers (1 when it has legacy advertising only).
    var setCount: Int { get }
    /// Puts `data` on set `set`, advertised from `address`, and enables the set.
    func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError)
    /// Disables set `set`.
    func stop(set: Int) throws(BluetoothError)
}

/// The simulated board's advertiser: no controller, every change appended to a log file (one
/// line per call: seconds since start, set, address and advertising data in hex), so tests and
/// newcomers can see and parse what a real controller would have sent.
public final class SimulatedBLEAdvertiser: BLEAdvertiser {
    public let setCount: Int
    /// The log file.
    public let path: String
    /// What each set shows now (nil: disabled).
    public private(set) var sets: [(address: BLEAddress, data: AdvertisingData)?]
    /// Seconds of stream time, set by the caller before each call (the sim has no clock of its own).
    public var now: Double = 0
    private let file: OpenFile

    /// Starts a new log at `path` (replacing an old one).
    public init(path: String, setCount: Int) throws(SystemError) {
        precondition(setCount >= 1, "a controller has at least one advertising set")
        self.setCount = setCount
        self.path = path
        self.sets = Array(repeating: nil, count: setCount)
        self.file = try OpenFile.forWriting(path)
    }

    public func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        sets[set] = (address, data)
        try record("\(SimulatedLog.stamp(now)) set \(set) advertise address \(address) data \(data)")
    }

    public func stop(set: Int) throws(BluetoothError) {
        precondition((0..<setCount).contains(set), "advertising set \(set) does not exist")
        guard sets[set] != nil else { return }
        sets[set] = nil
        try record("\(SimulatedLog.stamp(now)) set \(set) stop")
    }

    private func record(_ line: String) throws(BluetoothError) {
        do { try file.write(Array((line + "\n").utf8)) } catch { throw BluetoothError(error) }
    }
}

/// The time stamp the simulated drivers' logs (ble.log, leds.log) start each line with:
/// seconds of stream time with milliseconds, `12.345`.
enum SimulatedLog {
    static func stamp(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
