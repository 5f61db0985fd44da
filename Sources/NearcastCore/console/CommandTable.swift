/// The console's command words, for tab completion: each command with the words that may
/// follow it. Static strings, so completing a word never allocates.
public struct CommandTable: Sendable {
    /// One command and its argument words.
    public struct Entry: Sendable {
        public let name: StaticString
        public let arguments: [StaticString]
        public init(_ name: StaticString, _ arguments: [StaticString] = []) {
            self.name = name
            self.arguments = arguments
        }
    }

    public let entries: [Entry]
    /// The command names, in table order (kept so completion never builds an array).
    public let names: [StaticString]

    public init(_ entries: [Entry]) {
        self.entries = entries
        self.names = entries.map { $0.name }
    }

    /// The words that may follow `command` (empty for an unknown command).
    func arguments(of command: UnsafeBufferPointer<UInt8>) -> [StaticString] {
        for index in 0..<entries.count where entries[index].name.equals(command) { return entries[index].arguments }
        return []
    }
}

extension StaticString {
    /// True when the string starts with the `count` bytes at `prefix`.
    func hasPrefix(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        withUTF8Buffer { bytes in
            guard bytes.count >= prefix.count else { return false }
            for index in 0..<prefix.count where bytes[index] != prefix[index] { return false }
            return true
        }
    }

    /// True when the string equals the bytes.
    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        withUTF8Buffer { bytes in bytes.count == other.count && hasPrefix(other) }
    }
}
