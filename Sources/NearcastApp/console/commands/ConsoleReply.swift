/// What the console answers a line: the lines to print, and whether the line failed (the
/// interpreter refused it, its command threw a ``ConsoleFailure``, a PIN was wrong). A terminal
/// shows only the lines; a script session (`nearcast console` in a pipe) also tells the client
/// which lines failed, for its exit status.
struct ConsoleReply {
    let lines: [String]
    let failed: Bool

    /// A reply to a line that did what it asked.
    init(_ lines: [String]) {
        self.lines = lines
        failed = false
    }

    /// A reply to a line that failed.
    init(failed lines: [String]) {
        self.lines = lines
        failed = true
    }

    /// The reply a handler's outcome makes: its lines, or its failure's.
    init(_ outcome: () throws(ConsoleFailure) -> [String]) {
        do { self.init(try outcome()) } catch { self.init(failed: error.lines ?? ["error: \(error.message)"]) }
    }
}
