import Glibc

/// A short-lived helper process the daemon starts and services without blocking: the hub
/// client's `curl` calls and the `nearcast hub-identity` key exchange. Its stdin, stdout and
/// stderr are pipes to the daemon, never files: the daemon writes the child's input and collects
/// its output a little at a time from ``poll()``, which the loop calls once a period, so a slow
/// network never holds up the audio and nothing is written to the SD card per call.
///
/// ```swift
/// let child = try ChildProcess(arguments: ["/usr/bin/curl", "--config", "-"], input: config)
/// if let status = try child.poll() { print(status, child.output) }   // nil while it runs
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
    /// What the child wrote to stdout so far (all of it once ``poll()`` returned a status), at
    /// most `outputLimit` bytes.
    public private(set) var output: [UInt8] = []
    /// What the child wrote to stderr, at most `errorLimit` bytes (the rest is read and dropped).
    public private(set) var errors: [UInt8] = []
    /// Whether the child wrote more than `outputLimit` bytes to stdout: it was killed then.
    public private(set) var outputOverflowed = false
    private let outputLimit: Int
    private let errorLimit: Int
    /// The daemon's ends of the pipes (-1 once closed).
    private var inputPipe: Int32, outputPipe: Int32, errorPipe: Int32
    private var pendingInput: [UInt8]
    private var inputWritten = 0
    private var finished: Status?

    /// Starts `arguments[0]` (a path; see ``find(_:)``) with the rest as its arguments, `input`
    /// to be written to its stdin (then closed), and up to `outputLimit` bytes of its stdout kept.
    public init(arguments: [String], input: [UInt8] = [], outputLimit: Int = 64 * 1024,
                errorLimit: Int = 4096) throws(SystemError) {
        precondition(!arguments.isEmpty, "a child process needs a program")
        _ = Self.ignoreBrokenPipes
        self.arguments = arguments
        self.outputLimit = outputLimit
        self.errorLimit = errorLimit
        pendingInput = input
        // Each pipe is made blocking (the child's ends must be), close-on-exec (dup2 onto 0-2
        // clears that for the child's copies), and the daemon's ends made non-blocking below.
        let stdinPipe = try Self.makePipe(arguments[0])
        let stdoutPipe: (read: Int32, write: Int32)
        let stderrPipe: (read: Int32, write: Int32)
        do { stdoutPipe = try Self.makePipe(arguments[0]) } catch {
            Self.close(stdinPipe.read, stdinPipe.write)
            throw error
        }
        do { stderrPipe = try Self.makePipe(arguments[0]) } catch {
            Self.close(stdinPipe.read, stdinPipe.write, stdoutPipe.read, stdoutPipe.write)
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe.write, 2)
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
        Self.close(stdinPipe.read, stdoutPipe.write, stderrPipe.write)
        guard code == 0 else {
            Self.close(stdinPipe.write, stdoutPipe.read, stderrPipe.read)
            throw SystemError(code: code, operation: "start", subject: arguments[0])
        }
        pid = child
        inputPipe = stdinPipe.write
        outputPipe = stdoutPipe.read
        errorPipe = stderrPipe.read
        for descriptor in [inputPipe, outputPipe, errorPipe] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        if pendingInput.isEmpty { closeInput() }
    }

    /// Moves the input and output along, and returns the exit status once the child has ended
    /// (reaped then, its output all read), nil while it runs.
    public func poll() throws(SystemError) -> Status? {
        if let finished { return finished }
        try pump()
        if let finished { return finished }   // killed: it wrote more than the limit
        var status: Int32 = 0
        let reaped = try retryingInterrupts("waitpid", arguments[0]) { waitpid(pid, &status, WNOHANG) }
        guard reaped == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7F
        finished = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        // What it wrote just before it ended is still in the pipes.
        try pump()
        closePipes()
        return finished
    }

    /// Ends the child now (SIGKILL) and reaps it: at shutdown, or when it ran past its time.
    public func kill() {
        guard finished == nil else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = try? retryingInterrupts("waitpid", arguments[0]) { waitpid(pid, &status, 0) }
        finished = .signalled(SIGKILL)
        closePipes()
    }

    deinit {
        kill()
        closePipes()
    }

    /// Writes what the pipe takes of the input and reads what the child wrote, never waiting.
    private func pump() throws(SystemError) {
        while inputPipe >= 0 && inputWritten < pendingInput.count {
            var failure: SystemError?
            let written: Int? = pendingInput.withUnsafeBytes { bytes in
                do throws(SystemError) {
                    return try retryingInterrupts(nonBlocking: "write to", arguments[0]) {
                        write(inputPipe, bytes.baseAddress! + inputWritten, bytes.count - inputWritten)
                    }
                } catch {
                    failure = error
                    return nil
                }
            }
            if let failure {
                // EPIPE: the child stopped reading (it ended, or did not want it all); its exit
                // status says how it went.
                closeInput()
                if failure.code == EPIPE { break }
                throw failure
            }
            guard let written else { break }   // the pipe is full: the rest next period
            inputWritten += written
            if inputWritten == pendingInput.count { closeInput() }
        }
        if try drain(outputPipe, into: &output, limit: outputLimit) {
            outputOverflowed = true
            kill()
            return
        }
        _ = try drain(errorPipe, into: &errors, limit: errorLimit)
    }

    /// Reads what is in `descriptor` into `buffer`, keeping at most `limit` bytes; returns
    /// whether more than that came.
    private func drain(_ descriptor: Int32, into buffer: inout [UInt8], limit: Int) throws(SystemError) -> Bool {
        guard descriptor >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var overflowed = false
        while true {
            var failure: SystemError?
            let count: Int? = chunk.withUnsafeMutableBytes { space in
                do throws(SystemError) {
                    return try retryingInterrupts(nonBlocking: "read from", arguments[0]) { read(descriptor, space.baseAddress, space.count) }
                } catch {
                    failure = error
                    return nil
                }
            }
            if let failure { throw failure }
            guard let count, count > 0 else { return overflowed }   // nothing more now, or the end
            let room = max(0, limit - buffer.count)
            buffer.append(contentsOf: chunk[0..<min(room, count)])
            if count > room { overflowed = true }
        }
    }

    private func closeInput() {
        if inputPipe >= 0 { Glibc.close(inputPipe) }
        inputPipe = -1
        pendingInput = []
    }

    private func closePipes() {
        closeInput()
        Self.close(outputPipe, errorPipe)
        outputPipe = -1
        errorPipe = -1
    }

    /// A child that ends before reading all its input must not end the daemon with SIGPIPE: the
    /// write fails with EPIPE instead. (The child's own dispositions are reset at spawn.)
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func makePipe(_ program: String) throws(SystemError) -> (read: Int32, write: Int32) {
        // (pipe2 with O_CLOEXEC is not visible to Swift without _GNU_SOURCE; the daemon spawns
        // from its loop thread only, so no other spawn can inherit them in between.)
        var ends: [Int32] = [-1, -1]
        _ = try retryingInterrupts("make a pipe for", program) { ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    private static func close(_ descriptors: Int32...) {
        for descriptor in descriptors where descriptor >= 0 { Glibc.close(descriptor) }
    }

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
