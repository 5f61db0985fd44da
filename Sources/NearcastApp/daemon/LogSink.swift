/// Where the daemon's log lines go: stdout until the consoles are open, then the consoles
/// (``Consoles/log(_:)``). One object, so the parts that log need not know which.
final class LogSink {
    var handler: (String) -> Void

    init(_ handler: @escaping (String) -> Void) { self.handler = handler }

    func callAsFunction(_ line: String) { handler(line) }
}
