#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``SystemdNotifier`` could not be made: `$NOTIFY_SOCKET` names no usable address, or the
/// socket could not be opened. Reads like the box's SystemError:
/// `socket NOTIFY_SOCKET=/run/systemd/notify: Too many open files (errno 24)`.
///
/// This file is the module's one place that reads errno and retries EINTR (NearcastSystemd stands
/// alone, for the box and the hub, so it does not borrow the box's drivers' SystemError).
public struct SystemdNotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The errno value.
    public let code: Int32
    /// What was being done: "socket", "NOTIFY_SOCKET".
    public let operation: String
    /// The socket path it was done to.
    public let socketPath: String

    public init(code: Int32, operation: String, socketPath: String) {
        self.code = code
        self.operation = operation
        self.socketPath = socketPath
    }

    public var description: String {
        let text = strerror(code).map { String(cString: $0) } ?? "errno \(code)"
        return "\(operation) NOTIFY_SOCKET=\(socketPath): \(text) (errno \(code))"
    }
}

/// Runs a call that returns −1 and sets errno on failure, retrying EINTR; throws the error otherwise.
func retryingInterrupts<Result: BinaryInteger>(
    _ operation: String, _ socketPath: String, _ call: () -> Result
) throws(SystemdNotifierError) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemdNotifierError(code: code, operation: operation, socketPath: socketPath)
    }
}
