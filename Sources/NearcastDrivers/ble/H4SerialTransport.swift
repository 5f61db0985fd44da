import Glibc
import NearcastCore

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
