/// A console transport in memory: bytes put in are what the session reads, and what it writes
/// is kept to be taken. What drives a ``ConsoleSession`` without a terminal or a socket: the
/// console's tests and its fuzz target (fuzz/app/console).
public final class MemoryConsoleTransport: ConsoleTransport {
    public let name: String
    public private(set) var isClosed = false
    public let closeReason = ""
    /// Bytes not yet read by the session.
    public var input: [UInt8] = []
    private var output: [UInt8] = []

    public init(name: String = "memory console") { self.name = name }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, input.count)
        for index in 0..<count { buffer[index] = input[index] }
        input.removeFirst(count)
        return count
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        output += bytes
        return bytes.count
    }

    /// What the session wrote since the last call.
    public func takeOutput() -> [UInt8] {
        defer { output.removeAll() }
        return output
    }
}
