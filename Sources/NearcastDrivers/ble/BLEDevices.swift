import Glibc
import NearcastCore

// The BLE device class in one place: the device (BLEDevice: the HCI driver, its simulated twin,
// and the recovery that wraps either) and the way to a controller's HCI (HCITransport: the BlueZ
// socket or an H4 UART).

/// A Bluetooth LE device as Nearcast drives it: advertising sets shown from a random address,
/// passive scanning with reports, and a call per loop that keeps it in order. The HCI driver
/// (``HCIAdvertiser``) runs the Core spec's command sequence; the simulated board's
/// ``SimulatedBLEController`` is its twin, recording the same calls and failing the way a real
/// controller does. ``RecoveringAdvertiser`` wraps either and is one too: it never throws (a
/// non-throwing method meets each requirement), saying instead in its `health` and `problem`
/// what went wrong, and bringing the device back when it can; the daemon holds that one.
public protocol BLEDevice: AnyObject {
    /// Advertising sets the controller offers (1 when it has legacy advertising only).
    var setCount: Int { get }
    /// The advertising interval in milliseconds.
    var intervalMilliseconds: Int { get set }
    /// Called with each LE advertising report event (the HCI event's bytes) while scanning.
    var onReport: ((UnsafeRawBufferPointer) -> Void)? { get set }
    /// Puts `data` on set `set`, advertised from `address`, and enables the set.
    func advertise(set: Int, data: AdvertisingData, address: BLEAddress) throws(BluetoothError)
    /// Disables set `set`.
    func stop(set: Int) throws(BluetoothError)
    /// Starts or stops passive scanning.
    func setScanning(_ on: Bool) throws(BluetoothError)
    /// Call once per loop with the stream time in seconds: reads events, keeps sets on; throws
    /// when the controller has gone.
    func maintain(now: Double) throws(BluetoothError)
}

/// A way to a Bluetooth controller: HCI packets out (H4 framing, packet type first) and
/// events in. The BlueZ raw socket shares a controller the kernel has set up; an H4 UART gives
/// Nearcast the controller to itself, so it must reset it and set the event masks.
public protocol HCITransport: AnyObject {
    /// For messages: "hci0", "/dev/ttyS1".
    var name: String { get }
    /// Whether Nearcast owns the controller (and so resets it and sets its event masks).
    var ownsController: Bool { get }
    /// Sends one packet, packet-type byte first.
    func send(_ packet: UnsafeRawBufferPointer) throws(BluetoothError)
    /// Waits up to `timeoutMilliseconds` for events and calls `event` with each (code, length,
    /// parameters); returns whether any arrived.
    func receiveEvents(timeoutMilliseconds: Int32, _ event: (UnsafeRawBufferPointer) -> Void) throws(BluetoothError) -> Bool
}

/// Waits for `fd` to be readable; false on timeout.
func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32, name: String) throws(BluetoothError) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let n: Int32
    do { n = try retryingInterrupts("poll", name) { poll(&entry, 1, timeoutMilliseconds) } } catch { throw BluetoothError(error) }
    if n == 0 { return false }
    if entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && entry.revents & Int16(POLLIN) == 0 {
        throw BluetoothError(.noAdapter, "\(name): the device went away")
    }
    return true
}

/// Reads `fd` until it has nothing more (non-blocking), calling `chunk` with the bytes of each
/// read. End of file is the device closing.
func readAvailable(_ fd: Int32, into buffer: inout [UInt8], name: String,
                   _ chunk: (UnsafeRawBufferPointer) -> Void) throws(BluetoothError) {
    while true {
        var failure: SystemError?
        let got = buffer.withUnsafeMutableBytes { raw -> Int? in
            do throws(SystemError) {
                let n = try retryingInterrupts(nonBlocking: "read", name) { read(fd, raw.baseAddress, raw.count) }
                if let n, n > 0 { chunk(UnsafeRawBufferPointer(rebasing: raw[0..<n])) }
                return n
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw BluetoothError(failure) }
        guard let n = got else { return }                  // nothing more waiting
        if n == 0 { throw BluetoothError(.noAdapter, "\(name): the controller's device closed") }
    }
}

/// Writes all of `bytes` to `fd` (short writes continue; a full buffer waits up to a second).
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, name: String) throws(BluetoothError) {
    var offset = 0
    while offset < bytes.count {
        let written: Int?
        do {
            written = try retryingInterrupts(nonBlocking: "write", name) { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        } catch {
            throw BluetoothError(error)
        }
        if let written {
            offset += written
            continue
        }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready: Int32
        do { ready = try retryingInterrupts("poll", name) { poll(&entry, 1, 1_000) } } catch { throw BluetoothError(error) }
        if ready == 0 { throw BluetoothError(.io, "\(name): write stalled for 1 s") }
    }
}
