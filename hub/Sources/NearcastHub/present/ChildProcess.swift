#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOConcurrencyHelpers

/// Work that blocks (a `waitpid`, file reads and writes) run on a thread made for it and ended
/// after it, never on a thread of Swift's cooperative pool: the pool has one thread a core, and
/// on the hub's two cores a render awaited there would stop every request.
///
/// A thread a call, not a pool: the calls are few (a handful per upload) and a thread that
/// spawns a child must live as long as the child, because Linux's parent-death signal follows
/// the spawning *thread*.
enum OwnThread {
    /// The thread could not be made (the process is at its thread or memory limit).
    struct Unavailable: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "no thread for the work: \(String(cString: strerror(code)))" }
    }

    /// The body and where its result goes, passed to the new thread as its one argument.
    private final class Work: @unchecked Sendable {
        // Unchecked: written once before the thread starts, then only read by that thread.
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread; the caller's task awaits without holding a thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let work = Unmanaged.passRetained(Work { continuation.resume(with: Result(catching: body)) })
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            // Detached: nobody joins it. 512 KiB of stack is plenty for a syscall and a file read.
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            pthread_attr_setstacksize(&attributes, 512 * 1024)
            var thread = pthread_t()
            let code = pthread_create(&thread, &attributes, { argument in
                guard let argument else { return nil }
                Unmanaged<Work>.fromOpaque(argument).takeRetainedValue().body()
                return nil
            }, work.toOpaque())
            if code != 0 {
                work.release()
                continuation.resume(throwing: Unavailable(code: code))
            }
        }
    }
}

/// A program run as a child in a process group of its own, awaited on a thread of its own
/// (`OwnThread`), and killed with its whole group (SIGKILL to -pgid) at a wall-clock deadline or
/// when the awaiting task is cancelled (the uploader left, the hub is shutting down).
///
/// Its standard output and error go to files, not pipes: nothing has to read them while it runs
/// (a chatty child never blocks on a full pipe) and a hub out of descriptors cannot trap on a
/// pipe it failed to make (Foundation's `Pipe` does).
enum ChildProcess {
    /// How the child ended.
    enum End: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Why the hub stopped the child, if it did.
    enum Stop: Sendable, Equatable {
        case deadline
        case cancelled
    }

    /// The child's end, and whether the hub caused it.
    struct Outcome: Sendable, Equatable {
        var end: End
        var stoppedBy: Stop?
    }

    /// The child could not be started: `code` is the errno (EMFILE when out of descriptors).
    struct SpawnFailure: Error, CustomStringConvertible {
        let program: String
        let code: Int32
        var description: String { "\(program) could not be started: \(String(cString: strerror(code)))" }
        /// Out of descriptors, processes or memory: the hub is overloaded, not the request wrong.
        var isExhaustion: Bool { [EMFILE, ENFILE, EAGAIN, ENOMEM].contains(code) }
    }

    /// Runs `program` (an absolute path) with `arguments`, stdin from /dev/null and stdout and
    /// stderr written to the files named; returns when it has ended and been reaped. Throws
    /// `CancellationError` when the task was cancelled before the child started.
    static func run(_ program: String, _ arguments: [String], standardOutput: String, standardError: String,
                    deadline: ContinuousClock.Instant) async throws -> Outcome {
        let child = Child()
        let timer = Task {
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            child.stop(.deadline)
        }
        defer { timer.cancel() }
        let end = try await withTaskCancellationHandler {
            try await OwnThread.run {
                try child.spawnAndWait(program, arguments, standardOutput: standardOutput, standardError: standardError)
            }
        } onCancel: {
            child.stop(.cancelled)
        }
        return Outcome(end: end, stoppedBy: child.stoppedBy)
    }

    /// One child's state, shared by its waiting thread and whoever stops it. The process group
    /// is signalled only between the spawn and the moment its leader is reaped, so a signal can
    /// never reach a later process that was given the same id.
    private final class Child: Sendable {
        private struct State {
            var pid: pid_t?
            var reaped = false
            var stop: Stop?
        }
        private let state = NIOLockedValueBox(State())

        var stoppedBy: Stop? { state.withLockedValue { $0.stop } }

        /// The first reason wins; the group is killed now if it runs, or at its spawn. A child that
        /// has already ended is not stopped (its own end stands, even at the deadline's instant).
        func stop(_ reason: Stop) {
            state.withLockedValue { state in
                guard !state.reaped else { return }
                if state.stop == nil { state.stop = reason }
                if let pid = state.pid { kill(-pid, SIGKILL) }
            }
        }

        /// On the child's own thread: spawn, wait, reap.
        func spawnAndWait(_ program: String, _ arguments: [String], standardOutput: String, standardError: String) throws -> End {
            switch stoppedBy {
            case .cancelled?: throw CancellationError()
            // The deadline passed before it started: as if it had been killed at once.
            case .deadline?: return .signalled(SIGKILL)
            case nil: break
            }
            let pid = try Self.spawn(program, arguments, standardOutput: standardOutput, standardError: standardError)
            state.withLockedValue { state in
                state.pid = pid
                // Stopped while it was being spawned: kill it now.
                if state.stop != nil { kill(-pid, SIGKILL) }
            }
            // Wait without reaping: the zombie keeps the id (and the group's) from being reused
            // while a stop may still signal it.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            state.withLockedValue { state in
                // Anything the leader left in its group goes with it.
                kill(-pid, SIGKILL)
                state.reaped = true
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED / WTERMSIG, which Swift does not import (they are macros).
            let signal = status & 0x7F
            return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        }

        /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34; Debian 12 has 2.36), which
        /// Swift's Glibc module does not export, looked up once; without it the child keeps
        /// only what is not close-on-exec (NIO's sockets and SQLite's files are).
        private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

        /// posix_spawn in a new process group (its id is the child's), with every signal back to
        /// its default (the hub ignores SIGTERM and SIGINT to handle them itself; an ignored
        /// signal would stay ignored across exec) and none blocked, and no descriptor of the
        /// hub's past 2 (its sockets and database files).
        private static func spawn(_ program: String, _ arguments: [String], standardOutput: String, standardError: String) throws -> pid_t {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = closeFrom?(&actions, 3)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            var defaults = sigset_t()
            sigfillset(&defaults)
            sigdelset(&defaults, SIGKILL)
            sigdelset(&defaults, SIGSTOP)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            var unblocked = sigset_t()
            sigemptyset(&unblocked)
            posix_spawnattr_setsigmask(&attributes, &unblocked)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
            let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid = pid_t()
            let code = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
            guard code == 0 else { throw SpawnFailure(program: program, code: code) }
            return pid
        }
    }
}
