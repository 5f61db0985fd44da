import Foundation
import XCTest

/// A board whose sound card and controller are missing: an ALSA configuration with no PCMs (the
/// USB card unplugged) and an H4 controller on a UART that does not exist. Returns the board
/// file and the ALSA configuration to run with (`ALSA_CONFIG_PATH`).
func writeBrokenBoard(in dir: URL) throws -> (board: URL, alsaConfig: URL) {
    let config = dir.appendingPathComponent("asound.conf")
    try "# no PCMs: the USB sound card is not plugged in\n".write(to: config, atomically: true, encoding: .utf8)
    let board = dir.appendingPathComponent("broken.json5")
    try """
        {
          name: "broken", description: "a board whose sound card and controller are missing",
          gpio: { driver: "sim", chip: "sim", lines: 8 },
          leds: { status: { line: 0 }, audio: { line: 1 }, ble: { line: 2 }, consent: { line: 3 } },
          audio: {
            output: { driver: "alsa", device: "hw:CARD=Headphones,DEV=0", rate: 48000, period: 1024 },
            input: { driver: "alsa", device: "hw:CARD=Device,DEV=0", rate: 48000, period: 1024 },
          },
          bluetooth: { driver: "h4", device: "\(dir.path)/no-such-uart", baud: 115200 },
          console: { tty: "stdio", baud: 115200 },
        }
        """.write(to: board, atomically: true, encoding: .utf8)
    return (board, config)
}

extension PseudoTerminal {
    /// The JSON object on the line after `status --json` was typed on the daemon's console.
    func statusJSON() throws -> [String: Any] {
        let mark = length
        type("status --json\r")
        let tail = try XCTUnwrap(wait(for: "\"version\"", after: mark), screen)
        let line = try XCTUnwrap(tail.split(whereSeparator: \.isNewline).first { $0.hasPrefix("{") }, tail.debugDescription)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Polls `status --json` until `condition` holds (drivers notice a fault at their next call,
    /// recover on their retry schedule) or `timeout` passes; returns the last status.
    func waitForStatus(timeout: TimeInterval, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        var status: [String: Any] = [:]
        _ = try waitUntil(timeout: timeout, interval: 0.25) {
            status = try statusJSON()
            return condition(status)
        }
        return status
    }

    /// The `drivers.problems` of a status (what the LEDs and handlers show).
    static func problems(_ status: [String: Any]) -> [String] {
        ((status["drivers"] as? [String: Any])?["problems"] as? [String]) ?? ["(no problems field)"]
    }
}
