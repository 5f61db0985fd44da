import NearcastCore

/// Commands to a controller, one at a time: send, then read events until the Command Complete
/// or Command Status for that opcode (either may carry a failure). Events that are not the
/// answer (advertising reports, a set that terminated) go to ``otherEvent`` rather than being
/// lost, which libbluetooth's hci_send_req would do.
public final class HCIController {
    public let transport: HCITransport
    /// How long a command may take before the controller is declared unresponsive.
    public var commandTimeoutMilliseconds: Int32 = 2_000
    /// Events that are not answers to the command in flight (LE Meta, Hardware Error, ...).
    public var otherEvent: ((UnsafeRawBufferPointer) -> Void)?
    /// Commands sent, for status.
    public private(set) var commandsSent = 0

    public init(transport: HCITransport) { self.transport = transport }

    /// Sends `command` and returns the controller's answer; a non-zero HCI status is thrown as
    /// ``BluetoothError/Kind/refused(opcode:status:)`` unless `allowing` lists it.
    @discardableResult
    public func execute(_ command: HCICommand, allowing accepted: [UInt8] = []) throws(BluetoothError) -> HCICommandResult {
        try command.withH4Packet { packet throws(BluetoothError) in try transport.send(packet) }
        commandsSent += 1
        var answer: HCICommandResult?
        var malformed: HCIEventError?
        // A deadline on the monotonic clock: events that are not the answer (reports while
        // scanning) must not keep a command waiting for ever.
        let deadline = MonotonicClock.nanoseconds() + Int64(commandTimeoutMilliseconds) * 1_000_000
        while answer == nil {
            let left = (deadline - MonotonicClock.nanoseconds()) / 1_000_000
            guard left > 0 else {
                throw BluetoothError(.timeout(opcode: command.opcode), "no answer from \(transport.name) in \(commandTimeoutMilliseconds) ms")
            }
            _ = try transport.receiveEvents(timeoutMilliseconds: Int32(min(left, 50))) { bytes in
                do throws(HCIEventError) {
                    switch try HCIEvent.parse(bytes) {
                    case .commandComplete(let result) where result.opcode == command.opcode && answer == nil,
                         .commandStatus(let result) where result.opcode == command.opcode && answer == nil:
                        answer = result
                    case .commandComplete, .commandStatus:
                        break                                      // a credit-only NOP, or a late answer
                    default:
                        otherEvent?(bytes)
                    }
                } catch {
                    malformed = error
                }
            }
        }
        if let malformed, answer == nil { throw BluetoothError(.io, "\(transport.name): \(malformed)") }
        let result = answer!
        if !result.isSuccess && !accepted.contains(result.status) {
            throw BluetoothError(.refused(opcode: command.opcode, status: result.status), transport.name)
        }
        return result
    }

    /// Reads waiting events without blocking (advertising reports while scanning).
    public func pollEvents() throws(BluetoothError) {
        _ = try transport.receiveEvents(timeoutMilliseconds: 0) { bytes in otherEvent?(bytes) }
    }
}
