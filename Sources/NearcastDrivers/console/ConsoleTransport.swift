/// Where a technician's console bytes come from and go to: a serial line, the daemon's own
/// terminal, a `nearcast console` client on the socket (all ``TerminalPort``), or a test twin
/// that a unit test types into. Never blocks: reads return what has arrived, writes what fits.
public protocol ConsoleTransport: AnyObject {
    /// How logs and errors name this console ("/dev/ttyAMA0", "console socket client").
    var name: String { get }
    /// Whether the other end has gone (a client disconnected, a UART error).
    var isClosed: Bool { get }
    /// Why it closed, for the log.
    var closeReason: String { get }
    /// Reads what has arrived into `buffer`; 0 when nothing has.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Writes what the far end takes now; returns how many bytes.
    func write(_ bytes: UnsafeRawBufferPointer) -> Int
}

extension TerminalPort: ConsoleTransport {}
