import Glibc

/// A short-lived helper process the daemon starts and polls without blocking: the hub client's
/// `curl` calls and the `nearcast hub-identity` key exchange. Its stdin is /dev/null; stdout and
/// stderr go to files, read once it has exited. The daemon's loop checks ``poll()`` once a
/// period, so a slow network never holds up the audio.
///
/// ```swift
/// let child = try ChildProcess(arguments: ["/usr/bin/curl", "--config", conf], stdout: out, stderr: err)
/// if let status = try child.poll() { print(status) }   // nil while it runs
/// ```
public final class ChildProcess {
    /// How a child ended.
    public enum Status: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit status \(code)"
            case .signalled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    public let arguments: [String]
    private var finished: Status?

    /// Starts `arguments[0]` (a path; see ``find(_:)``) with the rest as its arguments.
    public init(arguments: [String], stdout: String, stderr: String) throws(SystemError) {
        precondition(!arguments.isEmpty, "a child process needs a program")
        self.arguments = arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of the daemon's (sound card, HCI socket, console clients) reaches the child.
        // (glibc's addclosefrom_np is not visible to Swift without _GNU_SOURCE.)
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        // The daemon blocks its stop signals for its signal watcher; the child starts with none
        // blocked and every signal at its default, so a kill or a timeout ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        // posix_spawn returns its error rather than setting errno.
        let code = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard code == 0 else { throw SystemError(code: code, operation: "start", subject: arguments[0]) }
        pid = child
    }

    /// The exit status once the child has ended (reaped then), nil while it runs.
    public func poll() throws(SystemError) -> Status? {
        if let finished { return finished }
        var status: Int32 = 0
        let reaped = try retryingInterrupts("waitpid", arguments[0]) { waitpid(pid, &status, WNOHANG) }
        guard reaped == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7F
        finished = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        return finished
    }

    /// Ends the child now (SIGKILL) and reaps it: at shutdown, or when it ran past its time.
    public func kill() {
        guard finished == nil else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = try? retryingInterrupts("waitpid", arguments[0]) { waitpid(pid, &status, 0) }
        finished = .signalled(SIGKILL)
    }

    deinit { kill() }

    /// The process's open descriptors, from /proc/self/fd (the listing's own descriptor left out).
    static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor != own { found.append(descriptor) }
        }
        return found
    }

    /// The full path of `program` on PATH (or itself when it holds a slash), nil when absent.
    public static func find(_ program: String) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = FileSystem.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
