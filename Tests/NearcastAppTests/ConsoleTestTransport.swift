import NearcastDrivers

/// The console transport's test twin: a test types bytes in and reads what the session wrote,
/// so console commands are exercised without a process or a terminal.
final class ConsoleTestTransport: ConsoleTransport {
    private let memory = MemoryConsoleTransport(name: "test console")
    var name: String { memory.name }
    var isClosed: Bool { memory.isClosed }
    var closeReason: String { memory.closeReason }

    /// Queues `text` as if typed.
    func type(_ text: String) { memory.input += Array(text.utf8) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int { memory.read(into: buffer) }
    func write(_ bytes: UnsafeRawBufferPointer) -> Int { memory.write(bytes) }

    /// What the session wrote since the last call, as lines with the terminal's control
    /// sequences and prompts removed.
    func takeLines() -> [String] {
        let text = String(decoding: memory.takeOutput(), as: UTF8.self)
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
