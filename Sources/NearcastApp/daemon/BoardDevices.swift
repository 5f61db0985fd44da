import NearcastCore
import NearcastDrivers

/// Opens a board's devices the same way for the daemon and `selftest`.
enum BoardDevices {
    /// The speaker: a WAV file in the state directory on the sim board (`fileName` overrides the
    /// board's), else ALSA playback on its own thread (which retries a missing device by itself).
    static func openOutput(_ board: Board, state: StateDirectory, fileName: String? = nil) throws(AudioDeviceError) -> AudioOutput {
        let device = board.audioOutput
        if device.driver == "wav" {
            return try SimulatedAudioOutput(path: state.file(fileName ?? device.device), sampleRate: device.rate,
                                            periodFrames: device.period)
        }
        return try ALSAPlayback(device: device.device, sampleRate: device.rate, periodFrames: device.period)
    }

    /// A real controller (`hci`: the BlueZ raw socket; `h4`: a UART), set up and probed.
    static func openController(_ bluetooth: Board.Bluetooth, intervalMilliseconds: Int = 100,
                               log: (String) -> Void) throws(BluetoothError) -> HCIAdvertiser {
        let transport: HCITransport
        if bluetooth.driver == "h4" {
            transport = try H4SerialTransport(path: bluetooth.device ?? "", baud: bluetooth.baud ?? 115_200,
                                              flowControl: bluetooth.flowControl)
        } else {
            transport = try HCISocketTransport(index: bluetooth.index ?? 0)
        }
        return try HCIAdvertiser(controller: HCIController(transport: transport), intervalMilliseconds: intervalMilliseconds, log: log)
    }
}
