/// A key the line editor acts on, decoded from what a terminal sends (``TerminalKeyDecoder``).
public enum TerminalKey: Sendable, Equatable {
    /// A printable ASCII byte (0x20-0x7E).
    case character(UInt8)
    /// CR, LF or CRLF: the line is entered.
    case enter
    /// DEL or BS: the byte before the cursor goes.
    case backspace
    /// Delete (`ESC [3~`): the byte at the cursor goes.
    case delete
    /// Ctrl-D: end of input on an empty line, Delete otherwise.
    case endOfInputOrDelete
    /// Left and right arrows, Ctrl-B and Ctrl-F.
    case left, right
    /// Home (`ESC [H`, `[1~`, `[7~`, `ESC OH`, Ctrl-A) and End (`ESC [F`, `[4~`, `[8~`, `ESC OF`, Ctrl-E).
    case home, end
    /// Up and down arrows: the history.
    case up, down
    /// Ctrl-K, Ctrl-U, Ctrl-W.
    case killToEnd, killToStart, killWord
    /// Ctrl-L.
    case clearScreen
    /// Ctrl-C.
    case interrupt
    /// Tab.
    case complete
}

/// Turns the bytes a terminal sends into ``TerminalKey``s, one byte at a time, with no
/// allocation: control bytes, CSI (`ESC [`) and SS3 (`ESC O`) sequences, and CR, LF and CRLF as
/// one Enter each (a terminal sending CRLF must not enter an empty line after every command).
///
/// Sequences it does not know are dropped whole, up to their final byte (or after 16 bytes, so a
/// stream of garbage cannot keep it waiting); other control bytes and bytes above 0x7E give no key.
///
/// ```swift
/// var keys = TerminalKeyDecoder()
/// [0x1B, 0x5B, 0x33, 0x7E].compactMap { keys.decode($0) }   // [.delete]
/// ```
public struct TerminalKeyDecoder: Sendable {
    private enum State: Sendable { case ground, escape, csi, ss3 }

    private var state = State.ground
    private var parameter = 0
    private var length = 0
    private var lastWasCarriageReturn = false

    /// A decoder at the start of a stream.
    public init() {}

    /// The key `byte` completes, if any.
    public mutating func decode(_ byte: UInt8) -> TerminalKey? {
        let afterCarriageReturn = lastWasCarriageReturn
        lastWasCarriageReturn = false
        switch state {
        case .escape:
            length = 0
            parameter = 0
            state = byte == UInt8(ascii: "[") ? .csi : byte == UInt8(ascii: "O") ? .ss3 : .ground
            return nil
        case .ss3:
            // ESC O x: the application-mode arrows and Home/End, the same finals as CSI.
            state = .ground
            return Self.sequenceKey(final: byte, parameter: 0)
        case .csi:
            length += 1
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                parameter = min(parameter * 10 + Int(byte - UInt8(ascii: "0")), 1_000)
            } else if byte >= 0x40 && byte <= 0x7E {
                state = .ground
                return Self.sequenceKey(final: byte, parameter: parameter)
            } else if byte < 0x20 || byte > 0x3F || length > 16 {
                state = .ground                                  // not a sequence we know: drop it
            }
            return nil
        case .ground:
            break
        }
        switch byte {
        case 0x0D:
            lastWasCarriageReturn = true
            return .enter
        case 0x0A: return afterCarriageReturn ? nil : .enter
        case 0x1B:
            state = .escape
            return nil
        case 0x7F, 0x08: return .backspace
        case 0x01: return .home
        case 0x05: return .end
        case 0x02: return .left
        case 0x06: return .right
        case 0x0B: return .killToEnd
        case 0x15: return .killToStart
        case 0x17: return .killWord
        case 0x0C: return .clearScreen
        case 0x03: return .interrupt
        case 0x04: return .endOfInputOrDelete
        case 0x09: return .complete
        case 0x20...0x7E: return .character(byte)
        default: return nil                                      // other control bytes, 8-bit bytes
        }
    }

    /// The key a CSI or SS3 sequence's final byte (and numeric parameter) stands for.
    private static func sequenceKey(final: UInt8, parameter: Int) -> TerminalKey? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameter {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
