/// The line being typed: up to ``capacity`` bytes in a fixed buffer, a cursor, and a count of the
/// bytes typed past the limit (not kept: a line that overflowed is refused whole when it ends).
///
/// Editing only; what the terminal shows is the editor's business, so each change says whether
/// anything changed and the editor decides how to redraw.
public struct LineBuffer: Sendable {
    /// The longest line kept, in bytes.
    public static let capacity = 256

    private var bytes: FixedArray<Tuple256<UInt8>, UInt8> = FixedArray(repeating: 0)
    /// Bytes in the line.
    public private(set) var count = 0
    /// The cursor's position, `0...count`.
    public private(set) var cursor = 0
    /// Bytes typed after the line was full.
    public private(set) var overflow = 0

    /// An empty line.
    public init() {}

    /// The byte at `index` (`0..<count`).
    public subscript(index: Int) -> UInt8 { bytes[index] }

    /// The line's bytes.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { all in body(UnsafeBufferPointer(rebasing: all[0..<count])) }
    }

    /// True when the line has nothing but spaces.
    public var isBlank: Bool {
        for index in 0..<count where bytes[index] != 0x20 { return false }
        return true
    }

    /// What ``insert(_:)`` did.
    public enum Insertion: Sendable, Equatable {
        /// Added at the end: echoing the byte is enough.
        case appended
        /// Added before the end: the rest of the line moved.
        case inserted
        /// The line is full: counted as overflow. `first` is true for the first such byte.
        case refused(first: Bool)
    }

    /// Inserts `byte` at the cursor, or counts it as overflow when the line is full.
    public mutating func insert(_ byte: UInt8) -> Insertion {
        guard count < Self.capacity else {
            overflow += 1
            return .refused(first: overflow == 1)
        }
        let atEnd = cursor == count
        insertWithRoom(byte)
        return atEnd ? .appended : .inserted
    }

    /// Inserts `byte` at the cursor when there is room, and otherwise drops it without counting
    /// it (completion's words: nothing the technician typed is lost by dropping them).
    public mutating func insertIfRoom(_ byte: UInt8) {
        guard count < Self.capacity else { return }
        insertWithRoom(byte)
    }

    private mutating func insertWithRoom(_ byte: UInt8) {
        var index = count
        while index > cursor { bytes[index] = bytes[index - 1]; index -= 1 }
        bytes[cursor] = byte
        count += 1
        cursor += 1
    }

    /// Removes the byte before the cursor; false when the cursor is at the start.
    public mutating func backspace() -> Bool {
        guard cursor > 0 else { return false }
        remove(cursor - 1..<cursor)
        return true
    }

    /// Removes the byte at the cursor; false when the cursor is at the end.
    public mutating func deleteAtCursor() -> Bool {
        guard cursor < count else { return false }
        remove(cursor..<cursor + 1)
        return true
    }

    /// Removes everything from the cursor to the end.
    public mutating func killToEnd() {
        count = cursor
    }

    /// Removes everything before the cursor.
    public mutating func killToStart() {
        remove(0..<cursor)
    }

    /// Removes the word before the cursor and the spaces after it; false when there is none.
    public mutating func killWord() -> Bool {
        var start = cursor
        while start > 0 && bytes[start - 1] == 0x20 { start -= 1 }
        while start > 0 && bytes[start - 1] != 0x20 { start -= 1 }
        guard start < cursor else { return false }
        remove(start..<cursor)
        return true
    }

    /// Removes `range`, which ends at the cursor or starts there: the cursor stays just before
    /// what followed the range.
    private mutating func remove(_ range: Range<Int>) {
        let removed = range.count
        for index in range.upperBound..<count { bytes[index - removed] = bytes[index] }
        count -= removed
        if cursor >= range.upperBound { cursor -= removed }
    }

    /// Moves the cursor one byte left; false at the start.
    public mutating func moveLeft() -> Bool {
        guard cursor > 0 else { return false }
        cursor -= 1
        return true
    }

    /// Moves the cursor one byte right; false at the end.
    public mutating func moveRight() -> Bool {
        guard cursor < count else { return false }
        cursor += 1
        return true
    }

    /// Moves the cursor to `position` (clamped to the line).
    public mutating func move(to position: Int) {
        cursor = max(0, min(position, count))
    }

    /// Makes the line `text` with the cursor at its end and no overflow (a line from the history).
    public mutating func replace(with text: UnsafeBufferPointer<UInt8>) {
        count = min(text.count, Self.capacity)
        for index in 0..<count { bytes[index] = text[index] }
        cursor = count
        overflow = 0
    }

    /// An empty line.
    public mutating func clear() {
        count = 0
        cursor = 0
        overflow = 0
    }
}
