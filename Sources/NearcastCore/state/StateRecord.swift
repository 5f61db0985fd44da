/// The envelope of one small state file (consent, beacon clock, identity key, PIN record): a
/// header naming what the file holds and its format version, the value on one line, and a
/// CRC-32 of the two, so a truncated, bit-rotted or misplaced file is told from a good one
/// before its value is believed:
///
///     nearcast-state consent 1
///     granted
///     crc32 5e1c2f0a
///
/// Every proper prefix of a record fails to decode (the record ends with the checksum line's
/// newline), so a file cut short by a failing SD card never passes for a shorter value.
/// Files written before the envelope existed (a bare value) decode as version 0.
public enum StateRecord {
    public static let magic = "nearcast-state"

    /// The file's text for `value` (one line, no newline in it).
    public static func encode(kind: String, version: Int, value: String) -> String {
        // Bytes, not Characters: "\r\n" is one Character, so contains("\n") misses it.
        precondition(!value.utf8.contains(0x0A) && !kind.utf8.contains(0x20), "a state record holds one line")
        let body = "\(magic) \(kind) \(version)\n\(value)\n"
        return body + "crc32 \(Hex.format(UInt64(CRC32.checksum(body.utf8)), byteCount: 4))\n"
    }

    /// The value and format version of a record of `kind`; `supported` are the versions this
    /// build reads (a bare legacy value is version 0 and needs 0 in `supported`).
    public static func decode(_ text: String, kind: String, supported: ClosedRange<Int>) throws(StateRecordError) -> (value: String, version: Int) {
        guard text.hasPrefix(magic + " ") else {
            guard supported.contains(0) else { throw .notARecord }
            let value = text.trimmingWhitespace
            guard !value.isEmpty, !value.utf8.contains(0x0A) else { throw .notARecord }
            return (value, 0)
        }
        // Split on the newline byte: splitting Characters would keep a value's trailing "\r"
        // and the line's "\n" together as one "\r\n" Character, and refuse a record that
        // encode wrote (found by fuzz/targets/state_record.swift).
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        // header, value, checksum, and the empty string after the final newline
        guard lines.count == 4, lines[3].isEmpty, lines[2].hasPrefix("crc32 ") else { throw .truncated }
        let header = lines[0].split(separator: " ")
        guard header.count == 3, let version = Int(header[2]) else { throw .notARecord }
        let body = lines[0] + "\n" + lines[1] + "\n"
        // Exactly as written: 8 lowercase hex digits (an upper-case digit is a flipped bit).
        let digits = lines[2].utf8.dropFirst(6)
        guard digits.count == 8, digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let stored = UInt32(String(lines[2].dropFirst(6)), radix: 16),
              stored == CRC32.checksum(body.utf8) else { throw .checksumMismatch }
        guard header[1] == kind else { throw .wrongKind(String(header[1])) }
        guard supported.contains(version) else { throw .unsupportedVersion(version, newest: supported.upperBound) }
        return (String(lines[1]), version)
    }
}

/// Why a state file's text is not a good record.
public enum StateRecordError: Error, Equatable, CustomStringConvertible {
    case notARecord
    case truncated
    case checksumMismatch
    case wrongKind(String)
    case unsupportedVersion(Int, newest: Int)

    public var description: String {
        switch self {
        case .notARecord: "not a Nearcast state record"
        case .truncated: "truncated (the record stops before its checksum line ends)"
        case .checksumMismatch: "damaged (its CRC-32 does not match)"
        case .wrongKind(let kind): "holds a '\(kind)' record, not this file's"
        case .unsupportedVersion(let version, let newest): "format version \(version) is newer than this build reads (\(newest))"
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    public var trimmingWhitespace: String {
        // "\r\n" is one Character of its own (a file saved by a Windows editor ends with it).
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
