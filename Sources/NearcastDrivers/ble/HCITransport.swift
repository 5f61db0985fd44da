import Glibc
import NearcastCore

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

/// An H4 controller on a UART (a board whose controller is not attached to the kernel, or a
/// test's pseudo-terminal with a Bumble controller behind it).
public final class H4SerialTransport: HCITransport {
    public let name: String
    public var ownsController: Bool { true }
    private let fd: Int32
    private var saved: termios
    private var deframer = H4Deframer()
    private var readBuffer = [UInt8](repeating: 0, count: 1024)

    /// Opens `path` raw, 8N1, at `baud`, with RTS/CTS when `flowControl` (wire it when the pins exist).
    public init(path: String, baud: Int, flowControl: Bool) throws(BluetoothError) {
        name = path
        do { (fd, saved) = try SerialLine.open(path, baud: baud, flowControl: flowControl) } catch { throw BluetoothError(error) }
    }

    deinit {
        tcsetattr(fd, TCSANOW, &saved)
        close(fd)
    }

    /// Bytes dropped while finding the start of a packet (line noise, a partial packet at start).
    public var discardedBytes: Int { deframer.discardedBytes }

    public func send(_ packet: UnsafeRawBufferPointer) throws(BluetoothError) {
        try writeAll(fd, packet, name: name)
    }

    public func receiveEvents(timeoutMilliseconds: Int32, _ event: (UnsafeRawBufferPointer) -> Void) throws(BluetoothError) -> Bool {
        guard try waitReadable(fd, timeoutMilliseconds: timeoutMilliseconds, name: name) else { return false }
        var any = false
        try readAvailable(fd, into: &readBuffer, name: name) { bytes in
            deframer.feed(bytes) { type, body in
                if type == 0x04 { any = true; event(body) }
            }
        }
        return any
    }
}
