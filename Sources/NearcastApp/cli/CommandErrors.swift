/// The command line itself is wrong: an unknown option, a missing or malformed value, a value
/// out of range. Printed with the command's usage line; exit status 64 (EX_USAGE).
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A command that could not do its job: one line for the user, exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A command that has already said everything and only needs to exit with this status
/// (`selftest` after a failed check's table).
struct ExitStatus: Error {
    let code: Int32
}
