import NearcastCore

/// The box's Bluetooth radio as the daemon uses it: advertising sets, passive scanning with
/// reports, and its health. It never throws for a controller that has gone away: it says so in
/// ``health`` and ``problem``, and ``maintain(now:)`` brings the controller back when it can.
/// ``RecoveringAdvertiser`` is the one implementation, over the HCI driver or the simulated
/// controller; tests and programs can put their own behind it.
public protocol BLERadio: BLEAdvertiser {
    /// What the ble LED shows.
    var health: BluetoothHealth { get }
    /// The controller's failure in its own words, while there is one.
    var problem: String? { get }
    /// The advertising interval in milliseconds.
    var intervalMilliseconds: Int { get set }
    /// Called with each LE advertising report event while scanning.
    var onReport: ((UnsafeRawBufferPointer) -> Void)? { get set }
    /// Scans (or stops) now, and whenever the controller comes back.
    func setScanning(_ on: Bool)
    /// Call once per loop with the stream time in seconds.
    func maintain(now: Double)
}

extension RecoveringAdvertiser: BLERadio {}
