import CBluetooth
import Glibc
import NearcastCore

/// The BlueZ raw HCI socket (HCI_CHANNEL_RAW), the normal way to a controller on a Pi: the
/// kernel has already reset it and set its event masks, and bluetoothd may share it. Every LE
/// command needs CAP_NET_RAW (EPERM otherwise); a device that is down gives ENETDOWN, so the
/// transport tries to bring it up (CAP_NET_ADMIN) and says what is wrong when it cannot.
public final class HCISocketTransport: HCITransport {
    public let name: String
    public var ownsController: Bool { false }
    public let index: Int
    private let fd: Int32
    private var readBuffer = [UInt8](repeating: 0, count: 1100)

    public init(index: Int) throws(BluetoothError) {
        self.index = index
        name = "hci\(index)"
        let fd: Int32
        do throws(SystemError) {
            fd = try retryingInterrupts("open a Bluetooth HCI socket", name) {
                socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), BTPROTO_HCI)
            }
        } catch {
            throw BluetoothError(error)
        }
        self.fd = fd
        do throws(BluetoothError) {
            try bringUpIfDown()
            var address = sockaddr_hci()
            address.hci_family = sa_family_t(AF_BLUETOOTH)
            address.hci_dev = UInt16(index)
            address.hci_channel = UInt16(HCI_CHANNEL_RAW)
            do throws(SystemError) {
                _ = try retryingInterrupts("bind", name) {
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
                    }
                }
                // A new raw socket receives nothing until it has a filter: take every event.
                _ = try retryingInterrupts("set the HCI event filter", name) { nearcast_hci_set_event_filter(fd) }
            } catch {
                throw BluetoothError(error)
            }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// HCIGETDEVINFO says whether the device is up; if not, HCIDEVUP (EALREADY means it is).
    private func bringUpIfDown() throws(BluetoothError) {
        var info = hci_dev_info()
        info.dev_id = UInt16(index)
        do throws(SystemError) {
            _ = try retryingInterrupts("read device info", name) { ioctl(fd, nearcast_hcigetdevinfo(), &info) }
            guard info.flags & 1 == 0 else { return }               // HCI_UP is bit 0
            _ = try retryingInterrupts("bring up", name, alreadyDoneWhen: EALREADY) { ioctl(fd, nearcast_hcidevup(), Int32(index)) }
        } catch where error.operation == "bring up" && (error.code == EPERM || error.code == EACCES) {
            throw BluetoothError(.poweredOff, "\(name) is down and bringing it up needs CAP_NET_ADMIN (or: hciconfig \(name) up)")
        } catch {
            throw BluetoothError(error)
        }
    }

    public func send(_ packet: UnsafeRawBufferPointer) throws(BluetoothError) {
        try writeAll(fd, packet, name: name)
    }

    public func receiveEvents(timeoutMilliseconds: Int32, _ event: (UnsafeRawBufferPointer) -> Void) throws(BluetoothError) -> Bool {
        guard try waitReadable(fd, timeoutMilliseconds: timeoutMilliseconds, name: name) else { return false }
        var any = false
        // Each read is one whole packet, packet-type byte first.
        try readAvailable(fd, into: &readBuffer, name: name) { packet in
            guard packet.count > 1, packet[0] == 0x04 else { return }
            any = true
            event(UnsafeRawBufferPointer(rebasing: packet[1...]))
        }
        return any
    }
}
