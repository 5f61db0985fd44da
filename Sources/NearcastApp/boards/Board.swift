import NearcastCore

/// A board: the hardware names Nearcast needs, loaded from `boards/NAME.json5` and validated.
///
/// Boards are data, not code: the same binary runs on a Pi 3, 4, 5 or Zero 2 W, on the
/// virtual board in qemu and on the simulated board, and only this description changes.
public struct Board: Sendable, Equatable {
    /// The LEDs every board must have, in the order of the LED table in docs/design.md.
    public typealias LEDRole = StatusLED

    /// One LED: a line of the board's GPIO chip.
    public struct LED: Sendable, Equatable {
        public var line: Int
        /// True when driving the line low lights the LED; the driver inverts, so the rest of
        /// Nearcast deals only in logical on and off.
        public var activeLow: Bool
    }

    /// How the LEDs are driven.
    public enum GPIODriver: String, Sendable, CaseIterable {
        /// libgpiod on a real chip.
        case gpiod
        /// Simulated: changes recorded in `leds.log` in the state directory.
        case sim
    }

    /// How sound is played and heard.
    public enum AudioDriver: String, Sendable, CaseIterable {
        /// An ALSA PCM.
        case alsa
        /// The simulated board: a WAV file in the state directory, paced like a card.
        case wav
    }

    /// How the Bluetooth controller is reached.
    public enum BluetoothDriver: String, Sendable, CaseIterable {
        /// BlueZ's raw HCI socket (the kernel's controller hciN).
        case hci
        /// An H4 UART controller, driven directly.
        case h4
        /// The simulated controller: advertising recorded in `ble.log`.
        case sim
    }

    /// The GPIO chip the LEDs hang off.
    public struct GPIO: Sendable, Equatable {
        public var driver: GPIODriver
        /// The chip's label (stable across kernels) or its number.
        public var chip: String
        /// Number of lines the chip has; LED lines must be below it.
        public var lines: Int
    }

    /// An audio device: an ALSA PCM or, on the simulated board, a WAV file.
    public struct AudioDevice: Sendable, Equatable {
        public var driver: AudioDriver
        /// ALSA name (`hw:CARD=Headphones,DEV=0`) or, for `wav`, a file name in the state directory.
        public var device: String
        public var rate: Int
        /// Frames per period (the chunk the driver reads or writes at once).
        public var period: Int
        /// True where a missing device is the user's to fix, not a fault to wait out: the pc
        /// board refuses to start without its speaker, where a box keeps retrying (its BLE
        /// goes on meanwhile) until the card comes back.
        public var requiredAtStart = false
    }

    /// The Bluetooth controller.
    public struct Bluetooth: Sendable, Equatable {
        public var driver: BluetoothDriver
        /// HCI device index (hci0 = 0) for `hci`.
        public var index: Int?
        /// Serial device for `h4`.
        public var device: String?
        /// Baud rate for `h4`.
        public var baud: Int?
        /// RTS/CTS hardware flow control for `h4` (wire it when the pins exist).
        public var flowControl = false
        /// Advertising sets the simulated controller offers (1: legacy advertising only). Real
        /// controllers are asked (LE Read Number of Supported Advertising Sets).
        public var advertisingSets: Int = 1
        /// Calibrated TX power at 0 m written into the Eddystone frames, in dBm.
        public var txPower: Int = -12
    }

    /// The technician console.
    public struct Console: Sendable, Equatable {
        /// A tty path, or `stdio`.
        public var tty: String
        public var baud: Int
    }

    public var name: String
    public var description: String
    public var gpio: GPIO
    public var leds: [LEDRole: LED]
    public var audioOutput: AudioDevice
    public var audioInput: AudioDevice?
    public var bluetooth: Bluetooth
    public var console: Console
    /// Whether broadcasting is allowed before a technician grants consent (sim and vm boards).
    public var consentGrantedAtStart: Bool
    /// The band(s) this board's speaker sends in unless the config, the command line or the
    /// console says otherwise (`audio.band`; high when the file does not say).
    public var audioBand: BandSelection = .high
    /// Where the board was loaded from.
    public var source: String

    /// True for the simulated board, which needs no hardware.
    public var isSimulated: Bool { audioOutput.driver == .wav && gpio.driver == .sim }
    /// Whether the daemon can listen over audio: with an ALSA microphone (`audio.input`), or on
    /// the simulated board, whose microphone hears its own speaker. BLE can be listened to on
    /// every board (the simulated advertiser, or the controller scanning).
    public var canListenOverAudio: Bool { audioOutput.driver == .wav || audioInput?.driver == .alsa }
    /// The mediums the daemon can listen over on this board.
    public var listenableMediums: DiscoveryMediums { canListenOverAudio ? .both : .ble }
}
