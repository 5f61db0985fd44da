#if !NEARCAST_GPIOD_V2
// Built against libgpiod 1.x (Debian 12); GPIOStatusLEDsV2.swift is the libgpiod 2.x twin.
import CGPIOD
import Glibc
import NearcastCore

/// The status LEDs on GPIO lines through libgpiod 1.6: one chip, found by label (stable across
/// kernels), name or number; each line requested as an output with the consumer name
/// "nearcast" (so `gpioinfo` shows who holds it), honouring active-low wiring.
public final class GPIOStatusLEDs: StatusLEDOutput {
    /// One LED's line.
    public typealias Line = GPIOLine

    public static let consumer = "nearcast"
    private let chip: OpaquePointer
    private let chipName: String
    private var handles: [OpaquePointer?] = Array(repeating: nil, count: StatusLED.count)
    private var released = false

    /// Opens `chip` (label, name such as `gpiochip0`, number, or /dev path) and requests `lines`,
    /// all off. Errors name the chip or the line: ENOENT (no such chip), EACCES (not in the
    /// `gpio` group), EINVAL (line beyond the chip), EBUSY (another program holds the line).
    public init(chip: String, lines: [Line]) throws(SystemError) {
        guard let handle = gpiod_chip_open_lookup(chip) else {
            throw SystemError.lastError("open GPIO chip", chip)
        }
        self.chip = handle
        self.chipName = chip
        for line in lines {
            guard let lineHandle = gpiod_chip_get_line(handle, UInt32(line.offset)) else {
                let error = SystemError.lastError("get GPIO line", line.subject(onChip: chip))
                gpiod_chip_close(handle)
                throw error
            }
            let flags = line.activeLow ? nearcast_gpiod_flag_active_low() : 0
            guard gpiod_line_request_output_flags(lineHandle, Self.consumer, flags, 0) == 0 else {
                let error = SystemError.lastError("request GPIO line as output", line.subject(onChip: chip))
                gpiod_chip_close(handle)                          // releases the lines requested so far
                throw error
            }
            handles[line.led.index] = lineHandle
        }
    }

    deinit { release() }

    public func set(_ led: StatusLED, lit: Bool) throws(SystemError) {
        guard !released, let line = handles[led.index] else { return }
        _ = try retryingInterrupts("set GPIO line", "\(chipName) (\(led.rawValue) LED)") { gpiod_line_set_value(line, lit ? 1 : 0) }
    }

    /// Drives every LED off, then closes the chip, which releases the lines (a released line
    /// may keep its last level, so off comes first).
    public func release() {
        guard !released else { return }
        for line in handles { if let line { _ = gpiod_line_set_value(line, 0) } }
        gpiod_chip_close(chip)
        released = true
    }
}
#endif
