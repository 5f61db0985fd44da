#if NEARCAST_GPIOD_V2
// Built against libgpiod 2.x (Debian 13, Raspberry Pi OS trixie: package libgpiod3). Package.swift
// picks this file or GPIOStatusLEDsV1.swift from the installed gpiod.h; both behave the same and
// throw the same errors, naming the board file's chip and line.
import CGPIOD
import Glibc
import NearcastCore

/// The status LEDs on GPIO lines through libgpiod 2.x: one chip, found by label (stable across
/// kernels), name, number or path; each line requested as an output of its own (so an error names
/// the LED whose line failed) with the consumer name "nearcast", honouring active-low wiring.
public final class GPIOStatusLEDs: StatusLEDOutput {
    /// One LED's line.
    public typealias Line = GPIOLine

    public static let consumer = "nearcast"
    private let chipName: String
    /// Per LED: its line's request and the line's offset on the chip.
    private var requested: [(request: OpaquePointer, offset: UInt32)?] = Array(repeating: nil, count: StatusLED.count)
    private var released = false

    /// Opens `chip` (label, name such as `gpiochip0`, number, or /dev path) and requests `lines`,
    /// all off. Errors name the chip or the line: ENOENT (no such chip), EACCES (not in the
    /// `gpio` group), EINVAL (line beyond the chip), EBUSY (another program holds the line).
    public init(chip: String, lines: [Line]) throws(SystemError) {
        chipName = chip
        let handle = try Self.openChip(chip)
        // The lines stay requested after the chip is closed: a request is a file of its own.
        defer { gpiod_chip_close(handle) }
        let lineCount = try Self.lineCount(handle, chip: chip)
        do throws(SystemError) {
            for line in lines {
                let subject = line.subject(onChip: chip)
                guard line.offset >= 0, line.offset < lineCount else {
                    throw SystemError(code: EINVAL, operation: "get GPIO line", subject: subject)
                }
                requested[line.led.index] = (try Self.requestOutput(handle, line: line, subject: subject), UInt32(line.offset))
            }
        } catch {
            releaseRequests()
            throw error
        }
    }

    deinit { release() }

    public func set(_ led: StatusLED, lit: Bool) throws(SystemError) {
        guard !released, let line = requested[led.index] else { return }
        let value = lit ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE
        _ = try retryingInterrupts("set GPIO line", "\(chipName) (\(led.rawValue) LED)") {
            gpiod_line_request_set_value(line.request, line.offset, value)
        }
    }

    /// Drives every LED off, then releases the line requests (a released line may keep its
    /// last level, so off comes first).
    public func release() {
        guard !released else { return }
        for case let line? in requested { _ = gpiod_line_request_set_value(line.request, line.offset, GPIOD_LINE_VALUE_INACTIVE) }
        releaseRequests()
        released = true
    }

    private func releaseRequests() {
        for case let line? in requested { gpiod_line_request_release(line.request) }
        requested = Array(repeating: nil, count: StatusLED.count)
    }

    /// libgpiod 2 opens chips by path only; 1.x's lookup also took a label, a name or a number.
    /// A label is found by opening each /dev/gpiochip* and reading its label, as gpiodetect does.
    private static func openChip(_ chip: String) throws(SystemError) -> OpaquePointer {
        let path: String?
        if chip.hasPrefix("/") {
            path = chip
        } else if !chip.isEmpty, chip.allSatisfy({ $0.isASCII && $0.isNumber }) {
            path = "/dev/gpiochip\(chip)"
        } else if chip.hasPrefix("gpiochip") {
            path = "/dev/\(chip)"
        } else {
            path = chipPath(labelled: chip)
        }
        guard let path else { throw SystemError(code: ENOENT, operation: "open GPIO chip", subject: chip) }
        guard let handle = gpiod_chip_open(path) else {
            // 1.x reported a device that is not a GPIO chip as ENOTTY (its ioctl failed); 2.x
            // checks first and says ENODEV. One meaning, one errno on both.
            let error = SystemError.lastError("open GPIO chip", chip)
            guard error.code == ENODEV else { throw error }
            throw SystemError(code: ENOTTY, operation: error.operation, subject: chip)
        }
        return handle
    }

    /// The /dev path of the chip whose label is `label`, or nil when no chip has it.
    private static func chipPath(labelled label: String) -> String? {
        guard let names = try? FileSystem.list("/dev") else { return nil }
        for name in names where name.hasPrefix("gpiochip") {
            let path = "/dev/\(name)"
            guard gpiod_is_gpiochip_device(path), let handle = gpiod_chip_open(path) else { continue }
            defer { gpiod_chip_close(handle) }
            guard let info = gpiod_chip_get_info(handle) else { continue }
            defer { gpiod_chip_info_free(info) }
            if let found = gpiod_chip_info_get_label(info), String(cString: found) == label { return path }
        }
        return nil
    }

    private static func lineCount(_ handle: OpaquePointer, chip: String) throws(SystemError) -> Int {
        guard let info = gpiod_chip_get_info(handle) else {
            throw SystemError.lastError("read GPIO chip info", chip)
        }
        defer { gpiod_chip_info_free(info) }
        return gpiod_chip_info_get_num_lines(info)
    }

    /// One line as an output, off, with its own settings, config and request config (freed here;
    /// the request keeps what it needs).
    private static func requestOutput(_ chip: OpaquePointer, line: Line, subject: String) throws(SystemError) -> OpaquePointer {
        guard let settings = gpiod_line_settings_new() else {
            throw SystemError.lastError("request GPIO line as output", subject)
        }
        defer { gpiod_line_settings_free(settings) }
        _ = gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT)
        gpiod_line_settings_set_active_low(settings, line.activeLow)
        _ = gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE)
        guard let config = gpiod_line_config_new() else {
            throw SystemError.lastError("request GPIO line as output", subject)
        }
        defer { gpiod_line_config_free(config) }
        var offset = UInt32(line.offset)
        guard gpiod_line_config_add_line_settings(config, &offset, 1, settings) == 0 else {
            throw SystemError.lastError("request GPIO line as output", subject)
        }
        guard let requestConfig = gpiod_request_config_new() else {
            throw SystemError.lastError("request GPIO line as output", subject)
        }
        defer { gpiod_request_config_free(requestConfig) }
        gpiod_request_config_set_consumer(requestConfig, consumer)
        guard let request = gpiod_chip_request_lines(chip, requestConfig, config) else {
            throw SystemError.lastError("request GPIO line as output", subject)
        }
        return request
    }
}
#endif
