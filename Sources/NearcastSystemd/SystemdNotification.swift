/// One thing to tell systemd, as the sd_notify protocol spells it: `KEY=VALUE` lines.
///
/// ```swift
/// notifier.send(.ready, .status("serving https://0.0.0.0:443"))
/// notifier.send(.reloading())          // RELOADING=1 and MONOTONIC_USEC=<now>
/// notifier.send(.ready)                // the reload is done
/// notifier.send(.stopping, .status("stopping (SIGTERM)"))
/// ```
public struct SystemdNotification: Sendable, Equatable, CustomStringConvertible {
    /// The lines as sent, without a trailing newline.
    public let description: String

    private init(_ text: String) { description = text }

    /// The service is up (Type=notify: `systemctl start` returns now); also sent after a reload.
    public static let ready = SystemdNotification("READY=1")
    /// The service is stopping (systemd waits for the exit instead of calling it a crash).
    public static let stopping = SystemdNotification("STOPPING=1")
    /// The watchdog ping (WatchdogSec=): send at least every ``SystemdNotifier/watchdogInterval``.
    public static let watchdog = SystemdNotification("WATCHDOG=1")

    /// The service has begun reloading its configuration. systemd (Type=notify-reload, v253)
    /// asks for the monotonic time the reload began with it, to tell this reload from an
    /// earlier one; the clock is read here unless a time is given.
    public static func reloading(monotonicMicroseconds: UInt64 = SystemdClock.monotonicMicroseconds()) -> SystemdNotification {
        SystemdNotification("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)")
    }

    /// The one line `systemctl status` shows. A line break would start another key, so line
    /// breaks become spaces.
    public static func status(_ line: String) -> SystemdNotification {
        SystemdNotification("STATUS=" + String(line.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }
}
