import NearcastDrivers

/// The console transport's test twin: a test types bytes in and reads what the session wrote,
/// so console commands are exercised without a process or a terminal.
final class ConsoleTestTransport: ConsoleTransport {
    let name = "test console"
    private(set) var isClosed = false
    let closeReason = ""
    private var input: [UInt8] = []
    private(set) var output: [UInt8] = []

    /// Queues `text` as if typed.
    func type(_ text: String) { input += Array(text.utf8) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, input.count)
        for index in 0..<count { buffer[index] = input[index] }
        input.removeFirst(count)
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        output += bytes
        return bytes.count
    }

    /// What the session wrote since the last call, as lines with the terminal's control
    /// sequences and prompts removed.
    func takeLines() -> [String] {
        let text = String(decoding: output, as: UTF8.self)
        output.removeAll()
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
