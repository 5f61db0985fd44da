/// The last lines the daemon logged, for the console's `log [N]`.
final class LogRing {
    let capacity: Int
    private var lines: [String] = []
    private var start = 0

    init(capacity: Int = 200) { self.capacity = capacity }

    func append(_ line: String) {
        if lines.count < capacity {
            lines.append(line)
        } else {
            lines[start] = line
            start = (start + 1) % capacity
        }
    }

    /// The last `count` lines, oldest first.
    func last(_ count: Int) -> [String] {
        let ordered = Array(lines[start...] + lines[..<start])
        return Array(ordered.suffix(count))
    }
}
