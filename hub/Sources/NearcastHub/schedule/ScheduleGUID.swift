import Crypto

/// Guids for talks of a file that has none (a CSV): RFC 9562 version-5 UUIDs (SHA-1, name-based)
/// in Nearcast's own namespace, so the same name gives the same guid on every import and a
/// re-import is idempotent like pretalx's (whose guids are version-5 UUIDs too).
///
/// ```swift
/// ScheduleGUID.make(name: "id:T1")   // the same string every time, e.g. "5c6f…-5…"
/// ```
enum ScheduleGUID {
    /// Nearcast's namespace for CSV talks (a random UUID, drawn once; never change it, or every
    /// CSV talk would read as removed and added again).
    static let namespace: [UInt8] = [0x3f, 0x1c, 0x8e, 0x52, 0x9d, 0x4b, 0x4e, 0x07,
                                     0xa6, 0x61, 0x2b, 0x90, 0xd4, 0x7e, 0x13, 0xc5]

    static func make(name: String) -> String {
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(data: Array(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
