import Glibc

/// The file-system operations the app needs beyond one open file: whole-file reads, atomic
/// replacement, directories, the environment. Each failure is a ``SystemError`` naming the path.
public enum FileSystem {
    /// Reads a whole file as UTF-8 text (invalid bytes become U+FFFD).
    public static func readText(_ path: String, limit: Int = 1 << 20) throws(SystemError) -> String {
        String(decoding: try readBytes(path, limit: limit), as: UTF8.self)
    }

    /// Reads a whole file's bytes, as they are (for keeping a damaged file aside exactly).
    public static func readBytes(_ path: String, limit: Int = 1 << 20) throws(SystemError) -> [UInt8] {
        let file = try OpenFile.forReading(path)
        let size = try file.size()
        guard size <= limit else { throw SystemError(code: EFBIG, operation: "read", subject: path) }
        return try file.read(count: max(size, 0))
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory is
    /// written, flushed to disk, renamed over `path`, and the directory is flushed, so a power
    /// cut leaves either the old or the new file, never a mix.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(SystemError) {
        let temporary = path + ".tmp"
        let file = try OpenFile.forWriting(temporary, mode: mode)
        try file.write(bytes)
        try file.sync()
        try file.close()
        _ = try retryingInterrupts("rename", path) { Glibc.rename(temporary, path) }
        let directory = directoryName(of: path)
        let fd = try retryingInterrupts("open", directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try retryingInterrupts("fsync", directory) { fsync(fd) }
    }

    /// Renames `path` to `newPath` (replacing it) and flushes the directory.
    public static func rename(_ path: String, to newPath: String) throws(SystemError) {
        _ = try retryingInterrupts("rename", path) { Glibc.rename(path, newPath) }
        let directory = directoryName(of: newPath)
        let fd = try retryingInterrupts("open", directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try retryingInterrupts("fsync", directory) { fsync(fd) }
    }

    /// Removes the file at `path` (nothing to do when it is already gone) and flushes the
    /// directory, so the removal survives a power cut.
    public static func remove(_ path: String) throws(SystemError) {
        guard try retryingInterrupts("unlink", path, alreadyDoneWhen: ENOENT, { unlink(path) }) != nil else { return }
        let directory = directoryName(of: path)
        let fd = try retryingInterrupts("open", directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try retryingInterrupts("fsync", directory) { fsync(fd) }
    }

    /// True when something exists at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// True when `path` is a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and any missing parents with `mode` (like `mkdir -p`).
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        if isDirectory(path) { return }
        let parent = directoryName(of: path)
        if parent != path && !isDirectory(parent) { try makeDirectories(parent, mode: mode) }
        _ = try retryingInterrupts("mkdir", path, alreadyDoneWhen: EEXIST) { mkdir(path, mode) }
    }

    /// Names in a directory (without `.` and `..`), sorted.
    public static func list(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError.lastError("opendir", path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The directory part of `path` ("." when there is none).
    public static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// An environment variable, or nil when unset or empty.
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The running executable's path (from /proc/self/exe).
    public static func executablePath() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                readlink("/proc/self/exe", $0, buffer.count - 1)
            }
        }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Reads `count` bytes from the kernel's random source (/dev/urandom: never blocks once the
    /// pool is initialised, which systemd ensures before services start).
    public static func randomBytes(_ count: Int) throws(SystemError) -> [UInt8] {
        let file = try OpenFile.forReading("/dev/urandom")
        let bytes = try file.read(count: count)
        guard bytes.count == count else { throw SystemError(code: EIO, operation: "read", subject: "/dev/urandom") }
        return bytes
    }

    /// Replaces this process with a fresh run of the same executable and arguments (execv);
    /// returns only when that fails, with the reason.
    public static func restartCurrentProcess() -> SystemError {
        guard let path = executablePath() else { return SystemError(code: ENOENT, operation: "find own executable") }
        var arguments = CommandLine.arguments.map { strdup($0) }
        arguments.append(nil)
        execv(path, &arguments)
        return SystemError.lastError("execv", path)
    }
}
