import NearcastCore
import NearcastDrivers

/// A script session's input and output, as ``ConsoleSession`` reads and writes them once a
/// `nearcast console` client has said ``ConsoleScript/hello``: lines in, one per LF (CR and CRLF
/// end one too, as on a terminal), the same bytes kept as the line editor keeps (printable
/// ASCII; a tab is a space, other control bytes and bytes above 0x7E are left out), and a line
/// over ``LineEditor/maximumLength`` refused whole; reply lines out, LF-terminated, with no
/// control byte in them, so none can be taken for the protocol's own.
struct ConsoleScriptLines {
    enum Event {
        case line(String)
        case tooLong(length: Int)
    }

    private var line: [UInt8] = []
    private var length = 0
    private var afterCR = false

    /// Takes one byte from the client; returns a line once one has ended.
    mutating func feed(_ byte: UInt8) -> Event? {
        defer { afterCR = byte == UInt8(ascii: "\r") }
        switch byte {
        case UInt8(ascii: "\n") where afterCR:
            return nil
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            defer { line.removeAll(keepingCapacity: true); length = 0 }
            guard length <= LineEditor.maximumLength else { return .tooLong(length: length) }
            return .line(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "\t"), 0x20...0x7E:
            length += 1
            if length <= LineEditor.maximumLength { line.append(byte == UInt8(ascii: "\t") ? 0x20 : byte) }
            return nil
        default:
            return nil
        }
    }

    /// A reply line as the client gets it: control bytes made spaces, then LF.
    static func replyLine(_ text: String) -> [UInt8] {
        text.utf8.map { $0 < 0x20 || $0 == 0x7F ? 0x20 : $0 } + [UInt8(ascii: "\n")]
    }
}
