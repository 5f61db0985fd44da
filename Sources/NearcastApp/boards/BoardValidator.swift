import NearcastCore

/// Turns a parsed board file into a ``Board``, checking every key: types, ranges, required
/// members, LED lines inside the chip and not shared, and no unknown keys anywhere.
enum BoardValidator {
    static let gpioDrivers = Board.GPIODriver.allCases.map { $0.rawValue }
    static let audioDrivers = Board.AudioDriver.allCases.map { $0.rawValue }
    static let bluetoothDrivers = Board.BluetoothDriver.allCases.map { $0.rawValue }
    static let sampleRates = 8_000...192_000
    static let baudRates = [9_600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 921_600, 1_000_000,
                            1_500_000, 2_000_000, 3_000_000]

    static func validate(_ root: JSON5Node, file: String) throws(ConfigError) -> Board {
        var top = try ObjectReader(root, file: file, path: "")
        let name = try top.requiredString("name")
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw top.error("name", "'\(name)' is not a board name (letters, digits, - and _)")
        }
        let description = try top.string("description") ?? name

        var gpioReader = try top.requiredObject("gpio")
        let gpio = Board.GPIO(
            driver: Board.GPIODriver(rawValue: try gpioReader.choice("driver", gpioDrivers) ?? "gpiod")!,
            chip: try chipName(&gpioReader),
            lines: try gpioReader.requiredInt("lines", in: 1...1024))
        try gpioReader.finish()

        var ledsReader = try top.requiredObject("leds")
        var leds: [Board.LEDRole: Board.LED] = [:]
        var owner: [Int: String] = [:]
        for role in Board.LEDRole.allCases {
            guard var led = try ledsReader.object(role.rawValue) else {
                throw ledsReader.error(role.rawValue, "missing (every board needs the \(role.rawValue) LED)")
            }
            let line = try led.requiredInt("line", in: 0...Int(Int32.max))
            guard line < gpio.lines else {
                throw led.error("line", "\(line) is out of range for chip \(gpio.chip) (0...\(gpio.lines - 1))")
            }
            if let other = owner[line] {
                throw led.error("line", "line \(line) is already used by leds.\(other)")
            }
            owner[line] = role.rawValue
            leds[role] = Board.LED(line: line, activeLow: try led.bool("activeLow") ?? false)
            try led.finish()
        }
        try ledsReader.finish()

        var audioReader = try top.requiredObject("audio")
        var outputReader = try audioReader.requiredObject("output")
        let output = try audioDevice(&outputReader)
        var input: Board.AudioDevice?
        if var inputReader = try audioReader.object("input") {
            input = try audioDevice(&inputReader)
        }
        let band = try audioReader.choice("band", ["high", "low", "both"]).flatMap { BandSelection(name: $0) } ?? .high
        try audioReader.finish()

        var btReader = try top.requiredObject("bluetooth")
        let btDriver = Board.BluetoothDriver(rawValue: try btReader.choice("driver", bluetoothDrivers) ?? "hci")!
        let bluetooth = Board.Bluetooth(
            driver: btDriver,
            index: try btDriver == .hci ? btReader.requiredInt("index", in: 0...15) : btReader.int("index", in: 0...15),
            device: try btDriver == .h4 ? btReader.requiredString("device") : btReader.string("device"),
            baud: try baud(&btReader, required: false),
            flowControl: try btReader.bool("flowControl") ?? false,
            advertisingSets: try btReader.int("advertisingSets", in: 1...63) ?? 1,
            txPower: try btReader.int("txPower", in: -100...20) ?? -12)
        if btDriver != .sim && bluetooth.advertisingSets != 1 {
            throw ConfigError(file: file, key: "bluetooth.advertisingSets",
                              message: "only the sim driver takes a set count; a real controller is asked for it")
        }
        try btReader.finish()

        var consoleReader = try top.requiredObject("console")
        let console = Board.Console(tty: try consoleReader.requiredString("tty"),
                                    baud: try baud(&consoleReader, required: true) ?? 115_200)
        try consoleReader.finish()

        let consent = try top.choice("consent", ["granted", "required"]) ?? "required"
        try top.finish()
        var board = Board(name: name, description: description, gpio: gpio, leds: leds, audioOutput: output,
                          audioInput: input, bluetooth: bluetooth, console: console,
                          consentGrantedAtStart: consent == "granted", source: file)
        board.audioBand = band
        return board
    }

    /// The chip may be a label (string) or a number.
    private static func chipName(_ reader: inout ObjectReader) throws(ConfigError) -> String {
        let node = try reader.required("chip")
        switch node.value {
        case .string(let label) where !label.isEmpty:
            return label
        case .number(let number) where number >= 0 && number < 256 && number == number.rounded():
            return String(Int(number))
        default:
            throw reader.error("chip", "expected a chip label (string) or number, found \(node.value.typeName)")
        }
    }

    private static func audioDevice(_ reader: inout ObjectReader) throws(ConfigError) -> Board.AudioDevice {
        let driver = Board.AudioDriver(rawValue: try reader.choice("driver", audioDrivers) ?? "alsa")!
        let device = try reader.requiredString("device")
        if driver == .alsa, let card = cardNumber(in: device) {
            throw reader.error("device", "'\(device)' names card \(card) by number; card numbers move between boots, use CARD=<name>")
        }
        let rate = try reader.requiredInt("rate", in: sampleRates)
        // Refused here, naming the key, rather than when the device opens mid-start (or, for a
        // microphone, when the decoder is made for it).
        do throws(ModemRateError) {
            _ = try ModemRate(sampleRate: rate)
        } catch {
            throw reader.error("rate", error.description)
        }
        let period = try reader.int("period", in: 32...65_536) ?? rate / 50
        let required = try reader.bool("requiredAtStart") ?? false
        try reader.finish()
        return Board.AudioDevice(driver: driver, device: device, rate: rate, period: period, requiredAtStart: required)
    }

    /// A card number in an ALSA name like `hw:0,0` or `plughw:1`.
    private static func cardNumber(in device: String) -> Int? {
        guard let colon = device.firstIndex(of: ":") else { return nil }
        let rest = device[device.index(after: colon)...]
        let first = rest.prefix { $0 != "," }
        return Int(first)
    }

    private static func baud(_ reader: inout ObjectReader, required: Bool) throws(ConfigError) -> Int? {
        guard let value = required ? try reader.requiredInt("baud", in: 1...4_000_000) : try reader.int("baud", in: 1...4_000_000) else {
            return nil
        }
        guard baudRates.contains(value) else {
            throw reader.error("baud", "\(value) is not a standard baud rate")
        }
        return value
    }
}
