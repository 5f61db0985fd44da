import NearcastCore

/// A Bluetooth controller as ``RecoveringAdvertiser`` drives it: advertising sets, passive
/// scanning with reports, and a call per loop that keeps it in order. The HCI driver
/// (``HCIAdvertiser``) is one; the simulated board's ``SimulatedBLEController`` is its twin,
/// which fails the way a real one does, so both go through the same recovery.
public protocol BLEController: BLEAdvertiser {
    /// The advertising interval in milliseconds.
    var intervalMilliseconds: Int { get set }
    /// Called with each LE advertising report event (the HCI event's bytes) while scanning.
    var onReport: ((UnsafeRawBufferPointer) -> Void)? { get set }
    /// Starts or stops passive scanning.
    func setScanning(_ on: Bool) throws(BluetoothError)
    /// Call once per loop with the stream time in seconds: reads events, keeps sets on; throws
    /// when the controller has gone.
    func maintain(now: Double) throws(BluetoothError)
}

extension HCIAdvertiser: BLEController {}
