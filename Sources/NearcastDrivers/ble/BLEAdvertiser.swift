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

/// The time stamp the simulated drivers' logs (ble.log, leds.log) start each line with:
/// seconds of stream time with milliseconds, `12.345`.
enum SimulatedLog {
    static func stamp(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
