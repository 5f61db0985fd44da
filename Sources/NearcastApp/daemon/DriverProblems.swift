/// What is wrong with the box's devices now, in the drivers' words (nil: nothing): written by
/// the loop's health reporting and the beacon clock's saving, read by `status`, systemd's
/// status line and the status LED.
final class DriverProblems {
    /// What is wrong with the sound devices.
    var audio: String?
    /// What is wrong with the Bluetooth controller.
    var bluetooth: String?
    /// Why the state directory cannot be written, while the beacon clock's reservation fails to
    /// save (a full or read-only disk); nil once a save succeeds again.
    var state: String?
}
