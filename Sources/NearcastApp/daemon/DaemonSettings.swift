import NearcastCore
import NearcastNearby

/// How the daemon was asked to run: the command line and the config file, before the saved
/// settings are laid over them at start (``SettingsResolver``).
public struct DaemonSettings {
    public var board: Board
    public var state: StateDirectory
    /// What the command line said (publications, mediums, interval, console, debug, hub); laid
    /// over the config file and under the console's saved settings by ``SettingsResolver``.
    var commandLine = SettingsLayer()
    /// Stop after this many seconds of audio (nil: run until SIGINT/SIGTERM).
    public var duration: Double?
    /// Listen on these mediums and log found/lost tokens (nil: broadcast only). On the sim
    /// board the microphone hears the simulated speaker and the scanner the simulated advertiser.
    public var subscribe: DiscoveryMediums?
    /// Seconds a subscription waits without hearing a token before reporting it lost.
    public var lostAfter: Double = SettingsDefaults.lostAfter
    /// Whether a serial console that cannot be opened stops the daemon (a flag given on
    /// the command line) or is logged and skipped (one from the config file).
    public var consoleIsRequired = false
    /// The rotation exponent of the box's hub identity (`--exponent`).
    var exponent = SettingsDefaults.exponent
    /// The static config file (`--config`), read again on SIGHUP, and what it said at start.
    var configPath: String?
    var config = StaticConfig()
}
