/// What a controller said back to a command: Command Complete (§7.7.14) or Command Status
/// (§7.7.15). Up to 16 return parameter bytes after the status are kept, which covers every
/// command Nearcast sends (the longest, LE Read Local Supported Features, returns 8).
public struct HCICommandResult: Sendable, Equatable {
    /// The command this answers (0x0000: a credit-only "no operation").
    public let opcode: UInt16
    /// 0x00 is success; see ``HCIStatus``.
    public let status: UInt8
    /// Num_HCI_Command_Packets: how many commands the controller will take now.
    public let credits: UInt8
    private var returned: FixedArray<Tuple16<UInt8>, UInt8> = FixedArray(repeating: 0)
    /// Return parameter bytes after the status.
    public private(set) var returnedCount = 0

    init(opcode: UInt16, status: UInt8, credits: UInt8, returned bytes: UnsafeRawBufferPointer) {
        self.opcode = opcode
        self.status = status
        self.credits = credits
        returnedCount = min(bytes.count, 16)
        for index in 0..<returnedCount { returned[index] = bytes[index] }
    }

    /// Return parameter byte `index` after the status.
    public subscript(returned index: Int) -> UInt8 {
        precondition(index >= 0 && index < returnedCount, "return parameter \(index) of \(returnedCount)")
        return returned[index]
    }

    public var isSuccess: Bool { status == 0 }

    public static func == (a: HCICommandResult, b: HCICommandResult) -> Bool {
        guard a.opcode == b.opcode, a.status == b.status, a.credits == b.credits, a.returnedCount == b.returnedCount else { return false }
        for index in 0..<a.returnedCount where a.returned[index] != b.returned[index] { return false }
        return true
    }
}

/// An HCI event as a BlueZ raw socket or an H4 UART delivers it after the packet-type byte:
/// event code, parameter length, parameters (Core Vol 4, Part E, §5.4.4). Parsing allocates
/// nothing; advertising reports are read with ``LEAdvertisingReports``.
public enum HCIEvent: Sendable, Equatable {
    case commandComplete(HCICommandResult)
    case commandStatus(HCICommandResult)
    /// An LE Meta event (0x3E) with this subevent code.
    case leMeta(subevent: UInt8)
    /// Hardware Error (0x10): the controller needs a reset.
    case hardwareError(code: UInt8)
    /// Any other event.
    case other(code: UInt8)

    public static let commandCompleteCode: UInt8 = 0x0E
    public static let commandStatusCode: UInt8 = 0x0F
    public static let hardwareErrorCode: UInt8 = 0x10
    /// LE Advertising Set Terminated (§7.7.65.18): a set stopped by itself.
    public static let advertisingSetTerminatedSubevent: UInt8 = 0x12

    /// Reads one event; the parameter length must match the bytes given.
    public static func parse(_ event: UnsafeRawBufferPointer) throws(HCIEventError) -> HCIEvent {
        guard event.count >= 2 else { throw .truncated(at: event.count, expected: "event code and parameter length") }
        let declared = Int(event[1])
        guard declared == event.count - 2 else { throw .lengthMismatch(declared: declared, present: event.count - 2) }
        let code = event[0]
        switch code {
        case commandCompleteCode:
            guard declared >= 3 else { throw .truncated(at: event.count, expected: "Num_HCI_Command_Packets and Command_Opcode") }
            let opcode = UInt16(event[3]) | UInt16(event[4]) << 8
            let status = declared >= 4 ? event[5] : 0
            let rest = declared > 4 ? UnsafeRawBufferPointer(rebasing: event[6...]) : UnsafeRawBufferPointer(start: nil, count: 0)
            return .commandComplete(HCICommandResult(opcode: opcode, status: status, credits: event[2], returned: rest))
        case commandStatusCode:
            guard declared == 4 else { throw .truncated(at: event.count, expected: "Status, Num_HCI_Command_Packets, Command_Opcode") }
            return .commandStatus(HCICommandResult(opcode: UInt16(event[4]) | UInt16(event[5]) << 8, status: event[2],
                                                   credits: event[3], returned: UnsafeRawBufferPointer(start: nil, count: 0)))
        case LEAdvertisingReports.leMetaEventCode:
            guard declared >= 1 else { throw .truncated(at: 2, expected: "LE subevent code") }
            return .leMeta(subevent: event[2])
        case hardwareErrorCode:
            guard declared >= 1 else { throw .truncated(at: 2, expected: "hardware code") }
            return .hardwareError(code: event[2])
        default:
            return .other(code: code)
        }
    }
}

/// HCI error codes (Core Vol 1, Part F) as readable text.
public enum HCIStatus {
    /// "0x0C Command Disallowed".
    public static func describe(_ code: UInt8) -> String {
        let name: String
        switch code {
        case 0x00: name = "Success"
        case 0x01: name = "Unknown HCI Command"
        case 0x03: name = "Hardware Failure"
        case 0x07: name = "Memory Capacity Exceeded"
        case 0x0C: name = "Command Disallowed"
        case 0x0D: name = "Connection Rejected due to Limited Resources"
        case 0x11: name = "Unsupported Feature or Parameter Value"
        case 0x12: name = "Invalid HCI Command Parameters"
        case 0x1F: name = "Unspecified Error"
        case 0x3C: name = "Advertising Timeout"
        case 0x42: name = "Unknown Advertising Identifier"
        case 0x43: name = "Limit Reached"
        case 0x45: name = "Packet Too Long"
        default: name = "error"
        }
        return "0x\(Hex.format(UInt64(code), byteCount: 1)) \(name)"
    }
}
