/// The last ``capacity`` lines entered, for the up and down arrows: one fixed block of
/// `capacity` x ``LineBuffer/capacity`` bytes used as a ring, the oldest line overwritten first,
/// and the walk through it (which line is shown, and the line that was being typed, kept so
/// walking back down returns to it).
public struct LineHistory: Sendable {
    /// Lines kept.
    public static let capacity = 32

    private var storage: FixedArray<Bytes8192, UInt8> = FixedArray(repeating: 0)
    private var lengths: FixedArray<Tuple32<Int>, Int> = FixedArray(repeating: 0)
    private var start = 0
    /// Lines kept now.
    public private(set) var count = 0
    /// How far back the walk is: -1 when the line being typed is shown, 0 the newest line kept.
    private var browsing = -1
    /// The line being typed when the walk began, overflow included: walking the history and back
    /// must not turn a refused line into a shorter one that runs.
    private var draft = LineBuffer()

    /// An empty history.
    public init() {}

    /// Keeps `line` as the newest, unless it is blank or the same as the newest already kept.
    public mutating func remember(_ line: LineBuffer) {
        guard line.count > 0, !line.isBlank else { return }
        if count > 0 {
            let newest = slot(age: 0)
            if lengths[newest] == line.count {
                var same = true
                for index in 0..<line.count where storage[newest * LineBuffer.capacity + index] != line[index] { same = false; break }
                if same { return }
            }
        }
        let slot: Int
        if count < Self.capacity {
            slot = (start + count) % Self.capacity
            count += 1
        } else {
            slot = start
            start = (start + 1) % Self.capacity
        }
        for index in 0..<line.count { storage[slot * LineBuffer.capacity + index] = line[index] }
        lengths[slot] = line.count
    }

    /// Shows the next older line in `line` (keeping the typed one the first time); false when
    /// there is none.
    public mutating func older(_ line: inout LineBuffer) -> Bool {
        guard browsing + 1 < count else { return false }
        if browsing == -1 { draft = line }
        browsing += 1
        load(into: &line)
        return true
    }

    /// Shows the next newer line in `line`, and past the newest the line that was being typed;
    /// false when the walk is not under way.
    public mutating func newer(_ line: inout LineBuffer) -> Bool {
        guard browsing >= 0 else { return false }
        browsing -= 1
        if browsing == -1 {
            line = draft
            line.move(to: line.count)
        } else {
            load(into: &line)
        }
        return true
    }

    /// Ends the walk (a line was entered or abandoned).
    public mutating func stopWalking() {
        browsing = -1
    }

    private func slot(age: Int) -> Int { (start + count - 1 - age) % Self.capacity }

    private func load(into line: inout LineBuffer) {
        let slot = slot(age: browsing)
        storage.withUnsafeBufferPointer { all in
            line.replace(with: UnsafeBufferPointer(rebasing: all[slot * LineBuffer.capacity..<slot * LineBuffer.capacity + lengths[slot]]))
        }
    }
}
