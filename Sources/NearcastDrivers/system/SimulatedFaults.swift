import Glibc
import NearcastCore

/// A fault a technician (or a test) switches on the simulated board with `sim fault NAME on`,
/// so the LEDs, the log, `status` and the Nearby error handlers can be seen without hardware:
/// each is the problem it simulates, made to happen, and has that problem's name. Each makes a
/// simulated driver fail the way its real twin does: the same errno sorted into the same error,
/// the same retries and recovery.
public typealias SimulatedFault = MediumProblem

extension MediumProblem {
    /// How the simulated board makes this problem happen.
    public var simulation: String {
        switch self {
        case .audioMissing: return "the speaker's card is gone (a USB card unplugged): silence, retried"
        case .audioPermission: return "the process may not open the speaker (EACCES)"
        case .audioUnderruns: return "the speaker underruns about twice a second"
        case .microphonePermission: return "the process may not open the microphone (EACCES): nothing is heard"
        case .bluetoothPower: return "the controller is powered off or rfkill-blocked (ERFKILL)"
        case .bluetoothPermission: return "no CAP_NET_RAW for the HCI socket (EPERM)"
        case .bluetoothNoAdapter: return "the adapter is unplugged (ENODEV)"
        }
    }
}

/// The simulated board's fault switches, shared by its drivers. Real boards have none.
public final class SimulatedFaults {
    /// The faults switched on now.
    public private(set) var active: Set<SimulatedFault> = []

    public init() {}

    /// Switches `fault` on or off; returns whether that changed anything.
    @discardableResult
    public func set(_ fault: SimulatedFault, on: Bool) -> Bool {
        on ? active.insert(fault).inserted : active.remove(fault) != nil
    }

    public func contains(_ fault: SimulatedFault) -> Bool { active.contains(fault) }

    /// The Bluetooth fault in effect, as the errno a real controller's socket gives for it
    /// (permission first: a process without the capability never learns the power state).
    var bluetoothErrno: (code: Int32, fault: SimulatedFault)? {
        if contains(.bluetoothPermission) { return (EPERM, .bluetoothPermission) }
        if contains(.bluetoothNoAdapter) { return (ENODEV, .bluetoothNoAdapter) }
        if contains(.bluetoothPower) { return (ERFKILL, .bluetoothPower) }
        return nil
    }
}
