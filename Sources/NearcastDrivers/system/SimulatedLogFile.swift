import Glibc
import NearcastCore

/// A simulated driver's log (`ble.log`, `leds.log`): created once when the board's devices are
/// opened, appended to by every instance of the driver (a controller re-opened after a fault
/// goes on in the same file), each line starting with stream seconds.
public final class SimulatedLogFile {
    /// The file's path.
    public let path: String
    private let file: OpenFile

    /// Starts a new log at `path` (replacing an old one).
    public init(path: String) throws(SystemError) {
        self.path = path
        file = try OpenFile.forWriting(path)
    }

    /// Appends `SECONDS LINE`.
    public func record(_ seconds: Double, _ line: String) throws(SystemError) {
        try file.write(Array("\(SimulatedLog.stamp(seconds)) \(line)\n".utf8))
    }
}

/// The time stamp the simulated drivers' logs (ble.log, leds.log) start each line with:
/// seconds of stream time with milliseconds, `12.345`.
enum SimulatedLog {
    static func stamp(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
