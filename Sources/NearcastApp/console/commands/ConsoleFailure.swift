/// Why a command line failed: shown as `error: MESSAGE` and the command's usage, or, for a
/// failure that says more than a command's misuse (a wrong PIN), as the lines it was given.
struct ConsoleFailure: Error {
    let message: String
    /// The lines shown in place of the message and the usage.
    let lines: [String]?

    init(_ message: String) {
        self.message = message
        lines = nil
    }

    /// A failure shown as `lines`, nothing added.
    init(saying lines: [String]) {
        message = lines.joined(separator: "; ")
        self.lines = lines
    }
}
