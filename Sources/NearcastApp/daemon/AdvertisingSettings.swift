/// The BLE advertising tunables a technician or the config file changes while the box runs.
final class AdvertisingSettings {
    /// Calibrated TX power at 0 m written into the Eddystone frames, dBm.
    var txPower: Int8
    /// The advertising interval the radio uses, in milliseconds.
    var intervalMilliseconds: Int

    init(txPower: Int8, intervalMilliseconds: Int) {
        self.txPower = txPower
        self.intervalMilliseconds = intervalMilliseconds
    }
}
