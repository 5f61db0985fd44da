import Glibc
import NearcastCore

/// Why the Bluetooth driver could not do what it was asked, sorted into the states the status
/// LEDs show. Every errno from the HCI socket or UART ends up here; the cause recovers by
/// itself (the daemon retries), so none of these stops the daemon.
public struct BluetoothError: Error, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// EPERM/EACCES: no CAP_NET_RAW (raw socket) or no access to the UART.
        case permissionDenied
        /// ENETDOWN, ERFKILL, or the controller is down.
        case poweredOff
        /// ENODEV, EAFNOSUPPORT, ENOENT: no adapter, no Bluetooth in the kernel, no such UART.
        case noAdapter
        /// The controller refused a command with an HCI status.
        case refused(opcode: UInt16, status: UInt8)
        /// The controller did not answer a command in time.
        case timeout(opcode: UInt16)
        /// Any other failure of the transport.
        case io
    }

    public let kind: Kind
    /// What was being done, with the system's or the controller's own words.
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// Sorts a failed system call by its errno.
    public init(_ error: SystemError) {
        switch error.code {
        case EPERM, EACCES: kind = .permissionDenied
        case ENETDOWN, ERFKILL: kind = .poweredOff
        case ENODEV, EAFNOSUPPORT, ENOENT, ENXIO: kind = .noAdapter
        default: kind = .io
        }
        detail = "\(error)"
    }

    /// What the status LEDs show for this error.
    public var health: BluetoothHealth {
        switch kind {
        case .permissionDenied: return .permissionDenied
        case .poweredOff: return .poweredOff
        case .noAdapter, .timeout, .io: return .noAdapter
        case .refused: return .ok
        }
    }

    public var description: String {
        switch kind {
        case .permissionDenied: return "bluetooth permission denied: \(detail)"
        case .poweredOff: return "bluetooth powered off: \(detail)"
        case .noAdapter: return "no bluetooth adapter: \(detail)"
        case .refused(let opcode, let status):
            return "controller refused \(HCIOpcode.name(of: opcode)): \(HCIStatus.describe(status))" + (detail.isEmpty ? "" : " (\(detail))")
        case .timeout(let opcode): return "controller did not answer \(HCIOpcode.name(of: opcode)): \(detail)"
        case .io: return "bluetooth: \(detail)"
        }
    }
}
