import NearcastDrivers

/// The console's tests drive a session through the in-memory transport, typing text and
/// reading back lines.
extension MemoryConsoleTransport {
    /// Queues `text` as if typed.
    func type(_ text: String) { input += Array(text.utf8) }

    /// What the session wrote since the last call, as lines with the terminal's control
    /// sequences and prompts removed.
    func takeLines() -> [String] {
        let text = String(decoding: takeOutput(), as: UTF8.self)
        // By scalar: "\r\n" is one Character to Swift.
        var cleaned = String.UnicodeScalarView()
        var escape = false
        for scalar in text.unicodeScalars {
            if escape {
                if scalar.properties.isAlphabetic { escape = false }
                continue
            }
            if scalar == "\u{1B}" { escape = true; continue }
            if scalar == "\r" { continue }
            cleaned.append(scalar)
        }
        return String(cleaned).split(separator: "\n").map { line in
            var line = Substring(line)
            while line.hasPrefix("nearcast> ") { line = line.dropFirst(10) }
            return String(line)
        }.filter { !$0.isEmpty }
    }
}
