import Glibc

/// A failed system call: the errno, what was being done, and to what.
///
/// Every errno that reaches Nearcast's code is turned into one of these (or a device error built
/// from it) in this file, so messages read the same everywhere:
/// `open /var/lib/nearcast/state.json: Permission denied (errno 13)`. Driver code never reads
/// `errno` itself (a test scans the sources): a call that returns −1 goes through
/// ``retryingInterrupts(_:_:_:)``, one that fails another way (a null pointer from libgpiod or
/// `opendir`) or must not be retried (`connect`, `execv`) takes ``lastError(_:_:)``, and
/// `close` goes through ``closeDescriptor(_:_:)``.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    /// The errno value.
    public let code: Int32
    /// The operation, e.g. "open".
    public let operation: String
    /// The file or device it was applied to, if any.
    public let subject: String?

    public init(code: Int32, operation: String, subject: String? = nil) {
        self.code = code
        self.operation = operation
        self.subject = subject
    }

    /// The C library's text for `code`.
    public var message: String { Self.message(for: code) }

    /// Whether a read was refused because the file is larger than the caller's limit
    /// (`FileSystem.readText`/`readBytes`): the file is there, but not what was expected.
    public var isFileTooLarge: Bool { code == EFBIG }

    public var description: String {
        let target = subject.map { " \($0)" } ?? ""
        return "\(operation)\(target): \(message) (errno \(code))"
    }

    /// The error the C call that just failed left in errno, naming `operation` and `subject`.
    /// For calls that do not return −1 on failure or must not be retried: `connect` (after EINTR
    /// the connection goes on in the background, and a second call fails with EALREADY), `execv`,
    /// and libraries that return a null pointer. Read it right after the call: any other call in
    /// between may overwrite errno.
    public static func lastError(_ operation: String, _ subject: String? = nil) -> SystemError {
        SystemError(code: errno, operation: operation, subject: subject)
    }

    /// The C library's text for an errno value. glibc's strerror is thread-safe since 2.32
    /// (unknown codes use a thread-local buffer); Debian 12 ships 2.36.
    public static func message(for code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// Runs a system call that returns −1 and sets errno on failure, retrying EINTR; throws a
/// ``SystemError`` naming `operation` and `subject` otherwise. This and
/// ``retryingInterrupts(nonBlocking:_:_:)`` are the only places that retry EINTR (never used for
/// `close`, whose descriptor is gone even when it fails; `clock_nanosleep`, which returns its
/// error instead of setting errno, is handled in ``MonotonicClock``).
@inline(__always)
func retryingInterrupts<Result: BinaryInteger>(
    _ operation: String, _ subject: String? = nil, _ call: () -> Result
) throws(SystemError) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(code: code, operation: operation, subject: subject)
    }
}

/// The same, where one errno means the job is already done (EEXIST for `mkdir`, ENOENT for
/// `unlink`, EALREADY for bringing a device up): nil then, the call's result otherwise.
@inline(__always)
func retryingInterrupts<Result: BinaryInteger>(
    _ operation: String, _ subject: String? = nil, alreadyDoneWhen done: Int32, _ call: () -> Result
) throws(SystemError) -> Result? {
    do {
        return try retryingInterrupts(operation, subject, call)
    } catch where error.code == done {
        return nil
    }
}

/// Closes a descriptor once, never retried: Linux frees the descriptor even when `close` fails,
/// so a retry after EINTR could close one that another thread has just been given. EINTR is
/// therefore not a failure here; any other errno (EIO, or ENOSPC from a file system that writes
/// back late) is the write's last word and is thrown.
func closeDescriptor(_ descriptor: Int32, _ subject: String? = nil) throws(SystemError) {
    guard close(descriptor) == -1 else { return }
    let code = errno
    if code == EINTR { return }
    throw SystemError(code: code, operation: "close", subject: subject)
}

/// The same for a call on a non-blocking descriptor: nil when it would block (EAGAIN or
/// EWOULDBLOCK), the call's result otherwise; EINTR retried, other errors thrown. The one place
/// where would-block is told from failure.
@inline(__always)
func retryingInterrupts<Result: BinaryInteger>(
    nonBlocking operation: String, _ subject: String? = nil, _ call: () -> Result
) throws(SystemError) -> Result? {
    do {
        return try retryingInterrupts(operation, subject, call)
    } catch where error.code == EAGAIN || error.code == EWOULDBLOCK {
        return nil
    }
}
