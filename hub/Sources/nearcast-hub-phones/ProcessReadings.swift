#if canImport(Glibc)
import Glibc
#endif

/// What /proc says of a process and of the machine: resident memory, CPU time. Read before and
/// after each phase, so the report can say what each process cost (the hubs, the balancer, the
/// database's server, this tool) and what else the machine was doing.
enum ProcessReadings {
    static let clockTicks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// A /proc file's text (its size reads as 0, so it is read until the end), nil when it is gone.
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A `VmRSS`-style field of /proc/PID/status in KiB (`pid` nil: this process).
    static func statusKiB(_ field: String, pid: Int32? = nil) -> Int? {
        guard let text = read("/proc/\(pid.map(String.init) ?? "self")/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// User plus system CPU seconds of a process so far (`pid` nil: this process), from
    /// /proc/PID/stat's utime and stime.
    static func cpuSeconds(pid: Int32? = nil) -> Double? {
        guard let text = read("/proc/\(pid.map(String.init) ?? "self")/stat"),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command's name (which may hold spaces) in parentheses: state is field 3,
        // utime field 14 and stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / clockTicks
    }

    /// CPU seconds the whole machine spent not idle, every process and core together (/proc/stat).
    static func machineBusySeconds() -> Double {
        guard let text = read("/proc/stat"), let first = text.split(separator: "\n").first else { return 0 }
        let values = first.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 8 else { return 0 }
        return (values[0..<8].reduce(0, +) - values[3] - values[4]) / clockTicks   // less idle and iowait
    }

    /// The processes whose parent is `pid` (a backend that exits takes its CPU time with it: the
    /// hubs' pooled connections stay, so theirs is counted).
    static func children(of pid: Int32) -> [Int32] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let child = Int32(name), let stat = read("/proc/\(child)/stat"), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == pid { found.append(child) }
        }
        return found
    }

    /// Open descriptors of this process (the entries of /proc/self/fd).
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return max(0, count - 3)   // ".", "..", and the directory's own descriptor
    }
}

/// CPU seconds of each measured process and of the machine at one moment; two of them give a
/// phase's cost.
struct CPUReading {
    var wallNs: UInt64
    var processes: [String: Double]
    var tool: Double
    var machine: Double

    static func now(_ processes: [(name: String, pid: Int32, children: Bool)]) -> CPUReading {
        var seconds: [String: Double] = [:]
        // A process gone (an instance killed) has no reading and no row after it.
        for (name, pid, children) in processes {
            guard let own = ProcessReadings.cpuSeconds(pid: pid) else { continue }
            seconds[name] = own
                + (children ? ProcessReadings.children(of: pid).reduce(0) { $0 + (ProcessReadings.cpuSeconds(pid: $1) ?? 0) } : 0)
        }
        return CPUReading(wallNs: Clocks.monotonicNs(), processes: seconds, tool: ProcessReadings.cpuSeconds() ?? 0,
                          machine: ProcessReadings.machineBusySeconds())
    }

    /// Cores each used from `earlier` to this reading (CPU seconds over wall seconds), this tool's
    /// as "this tool", and what the rest of the machine used as "other processes".
    func cores(since earlier: CPUReading) -> [(name: String, cores: Double)] {
        let wall = max(1e-9, Double(wallNs - earlier.wallNs) / 1e9)
        var rows: [(String, Double)] = []
        var named = 0.0
        for (name, value) in processes.sorted(by: { $0.key < $1.key }) {
            let used = max(0, value - (earlier.processes[name] ?? value))
            named += used
            rows.append((name, used / wall))
        }
        let tool = self.tool - earlier.tool
        rows.append(("this tool", tool / wall))
        rows.append(("other processes", max(0, machine - earlier.machine - named - tool) / wall))
        return rows
    }
}
