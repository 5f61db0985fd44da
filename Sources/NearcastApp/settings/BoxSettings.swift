import NearcastCore

/// The box's settings, each described once: its name (the config file's key), type, range,
/// default, the places it may come from, what a SIGHUP does with it and whether `config save`
/// keeps it (its `saved:` form: how the saved file holds it). Everything else is read from this
/// table: the config file's keys (``StaticConfig/parse(_:file:)``), `nearcast run`'s flags
/// (``RunCommand``), the layering of defaults, config file, command line and saved settings
/// (``SettingsResolver``), the SIGHUP reload's comparisons (``StaticConfig/changes(from:)``,
/// ``ConfigReloader``), the saved settings' file (``SavedSettings``), the console's
/// `config show`, and docs/settings.md's table (``markdownTable``). Adding a setting is a row
/// here, its field in ``SettingsLayer``, and the code that uses the value; docs/settings.md
/// shows it with one real setting.
///
/// The rows are in the config file's order, which is also the order of reload messages.
enum BoxSettings {
    static var all: [BoxSetting] { [
        .make("name", \.name, type: "text", range: "1 to 100 characters", default: "none",
              sources: [.configFile, .commandLine], help: "The venue's name for the box, e.g. \"Room 101\": the hub lists the box by it",
              onReload: .applied,
              flags: [.option("name", value: "text", help: "The venue's name for the box, e.g. \"Room 101\": the hub lists the box by it, and the presenter picks the room's box by it.")],
              config: { (reader, key) throws(ConfigError) in
                  let name = try reader.string(key)
                  if let name, let problem = SettingsDefaults.nameProblem(name) { throw reader.error(key, problem) }
                  return name
              },
              flag: { arguments throws(UsageError) in
                  let name: String? = try arguments.value("name")
                  if let name, let problem = SettingsDefaults.nameProblem(name) { throw UsageError("--name \(problem)") }
                  return name
              }),
        .make("board", \.board, type: "board name or file", default: "sim", sources: [.configFile, .commandLine],
              help: "A name from /usr/share/nearcast/boards or a board file's path", onReload: .needsRestart,
              flags: [.option("board", value: "name-or-file", help: "Board name or board file path (default: the config file's board, else sim).")],
              config: { (reader, key) throws(ConfigError) in try reader.string(key) },
              flag: { arguments throws(UsageError) in try arguments.value("board") }),
        .make("mediums", \.mediums, type: "audio, ble or both", default: "both",
              sources: [.configFile, .commandLine, .console, .savedSettings], help: "The mediums the box broadcasts on",
              onReload: .applied,
              saved: .init(group: "strategy", read: { (reader, key) throws(ConfigError) in
                  try reader.choice(key, ["audio", "ble", "both"]).flatMap { DiscoveryMediums(name: $0) }
              }, absent: .both, write: { "\"\($0)\"" }),
              console: "strategy mediums audio|ble|both", consoleLabel: "strategy mediums",
              flags: [.option("mediums", value: "audio|ble|both", help: "The box's mediums: audio, ble or both (default: the config file's, else both).")],
              config: { (reader, key) throws(ConfigError) in
                  try reader.choice(key, ["audio", "ble", "both"]).flatMap { DiscoveryMediums(name: $0) }
              },
              flag: { arguments throws(UsageError) in
                  guard let text: String = try arguments.value("mediums") else { return nil }
                  guard let mediums = DiscoveryMediums(name: text) else { throw UsageError("--mediums \(text): use audio, ble or both") }
                  return mediums
              },
              defaultValue: { _ in .both }),
        .make("mode", \.mode, type: "broadcast, scan or both", default: "broadcast", sources: [.console, .savedSettings],
              help: "Whether the box broadcasts, scans or both", onReload: .notInConfigFile,
              saved: .init(group: "strategy", read: { (reader, key) throws(ConfigError) in
                  try reader.choice(key, ["broadcast", "scan", "both"]).flatMap { DiscoveryMode(name: $0) }
              }, absent: .broadcast, write: { "\"\($0)\"" }),
              console: "strategy mode broadcast|scan|both", consoleLabel: "strategy mode", config: nil, defaultValue: { _ in .broadcast }),
        .make("audioInterval", \.audioInterval, type: "number", unit: "s", range: "0.5 to 3600", default: "1",
              sources: [.configFile, .commandLine], help: "Seconds between one publication's bursts (the 50 % duty cap stretches it to at least 1.44 s)",
              onReload: .needsRestart,
              flags: [.option("interval", value: "seconds", help: "Seconds between one publication's bursts (0.5 to 3600, default 1; bursts last 0.72 s, so the default 50 % duty cap stretches it to at least 1.44 s).")],
              config: { (reader, key) throws(ConfigError) in try reader.number(key, in: 0.5...3600) },
              flag: { arguments throws(UsageError) in
                  guard let interval: Double = try arguments.value("interval") else { return nil }
                  guard interval.isFinite && interval >= 0.5 && interval <= 3600 else {
                      throw UsageError("--interval \(interval): use 0.5 to 3600 seconds (a burst lasts 0.72 s; the duty cap stretches a short interval)")
                  }
                  return interval
              },
              defaultValue: { _ in SettingsDefaults.interval }),
        .make("audioLevel", \.audioLevel, type: "whole number", unit: "%", range: "1 to 100 (console: 0 to 100)", default: "50",
              sources: [.configFile, .console, .savedSettings], help: "The bursts' peak level",
              onReload: .applied,
              saved: .init(read: { (reader, key) throws(ConfigError) in try reader.requiredInt(key, in: 0...100) }, write: { "\($0)" }),
              console: "audio level [0-100]", consoleLabel: "audio level",
              config: { (reader, key) throws(ConfigError) in try reader.int(key, in: 1...100) },
              defaultValue: { _ in SettingsDefaults.audioLevel }),
        .make("audioBand", \.audioBand, type: "high, low or both", default: "the board's (high)",
              sources: [.board, .configFile, .commandLine, .console, .savedSettings],
              help: "high (18.5-20 kHz), low (15-16.5 kHz) or both (alternating bursts)",
              onReload: .applied,
              // Files saved before there were two bands have none: high.
              saved: .init(read: { (reader, key) throws(ConfigError) in
                  try reader.choice(key, ["high", "low", "both"]).flatMap { BandSelection(name: $0) }
              }, absent: .high, write: { "\"\($0.name)\"" }),
              console: "audio band [high|low|both]", consoleLabel: "audio band",
              flags: [.option("band", value: "high|low|both", help: "The audio band: high (18.5-20 kHz, the default), low (15-16.5 kHz, for phones that do not hear the high one) or both (alternating bursts).")],
              config: { (reader, key) throws(ConfigError) in
                  try reader.choice(key, ["high", "low", "both"]).flatMap { BandSelection(name: $0) }
              },
              flag: { arguments throws(UsageError) in try arguments.value("band") },
              show: \.name, defaultValue: { $0.audioBand }),
        .make("audioSweepEvery", \.audioSweepEvery, type: "whole number", unit: "s",
              range: "\(SettingsDefaults.sweepIntervals.lowerBound) to \(SettingsDefaults.sweepIntervals.upperBound)", default: "none (no sweeps)",
              sources: [.configFile, .commandLine, .console], help: "Play the field check's sweep every N seconds from the start",
              onReload: .applied, console: "audio sweep every SECONDS|off",
              flags: [.option("sweep-every", value: "seconds", help: "Play the field check's sweep every SECONDS (5 to 3600) from the start, for phones at the hub's /check page (as the console's 'audio sweep every'; never saved).")],
              config: { (reader, key) throws(ConfigError) in try reader.int(key, in: SettingsDefaults.sweepIntervals) },
              flag: { arguments throws(UsageError) in
                  guard let seconds: Int = try arguments.value("sweep-every") else { return nil }
                  let range = SettingsDefaults.sweepIntervals
                  guard range.contains(seconds) else {
                      throw UsageError("--sweep-every \(seconds): use \(range.lowerBound) to \(range.upperBound) seconds")
                  }
                  return seconds
              }),
        .make("bleInterval", \.bleInterval, type: "whole number", unit: "ms", range: "20 to 10240", default: "100",
              sources: [.configFile, .console, .savedSettings], help: "The BLE advertising interval",
              onReload: .applied,
              saved: .init(read: { (reader, key) throws(ConfigError) in try reader.requiredInt(key, in: 20...10_240) }, write: { "\($0)" }),
              console: "ble interval [MS]", consoleLabel: "ble interval",
              config: { (reader, key) throws(ConfigError) in try reader.int(key, in: 20...10_240) },
              defaultValue: { _ in SettingsDefaults.bleIntervalMilliseconds }),
        .make("txPower", \.txPower, type: "whole number", unit: "dBm", range: "-100 to 20", default: "the board's",
              sources: [.board, .configFile, .console, .savedSettings], help: "The calibrated TX power at 0 m written into the frames",
              onReload: .applied,
              saved: .init(read: { (reader, key) throws(ConfigError) in try reader.requiredInt(key, in: -100...20) }, write: { "\($0)" }),
              console: "ble txpower [DBM]", consoleLabel: "ble txpower",
              config: { (reader, key) throws(ConfigError) in try reader.int(key, in: -100...20) },
              defaultValue: { $0.bluetooth.txPower }),
        .make("console", \.console, type: "stdio, none or a serial device", default: "stdio",
              sources: [.configFile, .commandLine], help: "The technician console",
              onReload: .needsRestart,
              flags: [.option("console", value: "stdio|none|device", help: "Technician console: stdio (the default), none (log only), or a serial device (e.g. /dev/ttyAMA0; the board's baud).")],
              config: { (reader, key) throws(ConfigError) in
                  let console = try reader.string(key)
                  if let console, !isConsole(console) {
                      throw reader.error(key, "'\(console)': use stdio, none or a serial device path such as /dev/serial0")
                  }
                  return console
              },
              flag: { arguments throws(UsageError) in
                  let console: String? = try arguments.value("console")
                  if let console, !isConsole(console) {
                      throw UsageError("--console \(console): use stdio, none or a serial device path such as /dev/ttyAMA0")
                  }
                  return console
              },
              defaultValue: { _ in "stdio" }),
        .make("debug", \.debug, type: "true or false", default: "false",
              sources: [.configFile, .commandLine, .console, .savedSettings],
              help: "Log every scheduling decision (on when any source turns it on)",
              onReload: .applied,
              saved: .init(read: { (reader, key) throws(ConfigError) in try reader.bool(key) }, absent: false, write: { "\($0)" }),
              console: "debug on|off", consoleLabel: "debug",
              flags: [.flag("debug", help: "Log every scheduling decision (Nearby's debug logging).")],
              config: { (reader, key) throws(ConfigError) in try reader.bool(key) },
              flag: { arguments throws(UsageError) in arguments.flag("debug") ? true : nil },
              consoleValue: { $0 ? "on" : "off" },
              defaultValue: { _ in false }),
        .make("publications", \.publications, type: "list of publications", range: "up to \(SchedulerConfiguration.maximumPublications)",
              default: "the direct token \"nearcast\" (with a hub: the hub identity's EID)",
              sources: [.configFile, .commandLine, .console, .savedSettings],
              help: "What the box publishes, as --publish writes them; the command line's replace the saved ones for that run",
              onReload: .notCompared,
              saved: .init(read: { (reader, key) throws(ConfigError) in try readSavedPublications(&reader, key) },
                           write: { "[\n" + $0.map { "    \(Formatting.jsonString($0.text)),\n" }.joined() + "  ]" }),
              console: "publish ... | unpublish ID", consoleLabel: "publications:",
              // Read by RunCommand with --payload, --kind and --exponent, which shape it.
              flags: [.repeated("publish", value: "spec", help: "A publication, instead of --payload/--kind; up to 8: direct:HEX, eid[:K] or message:NAMESPACE/TYPE:TEXT (through --hub), optionally @audio, @ble or @both (e.g. direct:c0ffee@ble, eid:10, message:demo/slide:Slide 3).")],
              config: { (reader, key) throws(ConfigError) in try readPublications(&reader, key) },
              show: { $0.map(\.text).joined(separator: " ") },
              consoleValue: { $0.isEmpty ? "none" : $0.map(\.text).joined(separator: " ") }),
        .make("hub", \.hub, type: "{ url, key, ca }", default: "none",
              sources: [.configFile, .commandLine], help: "The nearcast-hub that message publications go through",
              onReload: .notCompared,
              flags: [.option("hub", value: "url", help: "A nearcast-hub (http(s)://HOST[:PORT]) to publish message: publications through: the box registers its EID identity there and keeps each message attached to it."),
                      .option("hub-key", value: "secret", help: "The hub project's secret key (nearcast-hub project create); better kept in the config file's hub.key."),
                      .option("hub-ca", value: "file", help: "A PEM CA bundle for a hub behind a TLS proxy with a private certificate (default: the system's).")],
              config: { (reader, key) throws(ConfigError) in try readHub(&reader, key) },
              flag: { arguments throws(UsageError) in try hubFromFlags(arguments) },
              show: \.url),
    ] }

    /// The row for `key`.
    static func setting(_ key: String) -> BoxSetting? { all.first { $0.key == key } }

    /// Every flag the settings take on `nearcast run`.
    static var flags: [ArgumentSpec] { all.flatMap(\.flags) }

    /// A console may be stdio, none or a device's path.
    private static func isConsole(_ text: String) -> Bool { text == "stdio" || text == "none" || text.hasPrefix("/") }

    private static func readPublications(_ reader: inout ObjectReader, _ key: String) throws(ConfigError) -> [PublicationSpec]? {
        guard let publications = try reader.strings(key) else { return nil }
        guard publications.count <= SchedulerConfiguration.maximumPublications else {
            throw reader.error(key, "\(publications.count) publications: at most \(SchedulerConfiguration.maximumPublications)")
        }
        var specs: [PublicationSpec] = []
        for (index, text) in publications.enumerated() {
            do { specs.append(try PublicationSpec.parse(text, defaultExponent: SettingsDefaults.exponent)) } catch {
                throw reader.error(key, "item \(index + 1): \(text): \(error)")
            }
        }
        return specs
    }

    /// The saved file's publications: required, each item a string `--publish` reads, errors
    /// naming the item (`publications[1]`).
    private static func readSavedPublications(_ reader: inout ObjectReader, _ key: String) throws(ConfigError) -> [PublicationSpec] {
        let list = try reader.required(key)
        guard case .array(let items) = list.value else {
            throw reader.error(key, "expected an array of publications, found \(list.value.typeName)")
        }
        guard items.count <= SchedulerConfiguration.maximumPublications else {
            throw reader.error(key, "\(items.count) publications; at most \(SchedulerConfiguration.maximumPublications)")
        }
        var specs: [PublicationSpec] = []
        for (index, item) in items.enumerated() {
            let place = ConfigError(file: reader.file, line: item.line, column: item.column, key: "\(key)[\(index)]", message: "")
            guard case .string(let spec) = item.value else {
                throw place.with("expected a string such as \"direct:c0ffee@both\", found \(item.value.typeName)")
            }
            do { specs.append(try PublicationSpec.parse(spec, defaultExponent: SettingsDefaults.exponent)) } catch {
                throw place.with("'\(spec)' is not a publication (\(error)): direct:HEX, eid:K or message:NAMESPACE/TYPE:TEXT, then @audio, @ble or @both")
            }
        }
        return specs
    }

    private static func readHub(_ reader: inout ObjectReader, _ key: String) throws(ConfigError) -> HubSettings? {
        guard var hub = try reader.object(key) else { return nil }
        let url = try hub.requiredString("url"), secret = try hub.requiredString("key")
        let ca = try hub.string("ca")
        let settings: HubSettings
        do { settings = try HubSettings(url: url, key: secret, certificateAuthority: ca) } catch {
            throw hub.error(error.field, error.message)
        }
        try hub.finish()
        return settings
    }

    private static func hubFromFlags(_ arguments: ParsedArguments) throws(UsageError) -> HubSettings? {
        let hubURL: String? = try arguments.value("hub"), hubKey: String? = try arguments.value("hub-key")
        let hubCA: String? = try arguments.value("hub-ca")
        switch (hubURL, hubKey) {
        case (nil, nil):
            guard hubCA == nil else { throw UsageError("--hub-ca is for --hub") }
            return nil
        case (let url?, let key?):
            do { return try HubSettings(url: url, key: key, certificateAuthority: hubCA) } catch {
                throw UsageError("--hub: \(error.message)")
            }
        case (_?, nil): throw UsageError("--hub needs --hub-key SECRET (the project's secret key)")
        case (nil, _?): throw UsageError("--hub-key needs --hub URL")
        }
    }
}
