import NearcastCore
import NearcastDrivers

/// What a technician saved with the console's `config save`: the box's strategy, its
/// publications and the tunables, in `<state>/settings.json5`. The daemon starts from them, so
/// a box switched off at the wall comes back broadcasting the same event.
///
/// The file is JSON5 like the board files and is validated the same way (an unknown key or a
/// value out of range is an error naming file, line and key). Saving replaces it atomically
/// and keeps the last good copy as `settings.json5.previous`, which is used when the main file
/// is damaged.
///
/// Which settings it holds, where, and how each is read and written are the table's
/// (``BoxSettings``, each row's `saved:` form); the values are a ``SettingsLayer`` that says
/// every one of them, read as `saved.audioLevel`.
@dynamicMemberLookup
struct SavedSettings: Equatable {
    static let fileName = "settings.json5"
    static let formatVersion = 1

    /// Every setting `config save` keeps, and nothing else.
    private(set) var layer: SettingsLayer

    /// The settings `layer` says that `config save` keeps; one it does not say takes the value
    /// an older file without it is read with (a setting every file holds must be said).
    init(_ layer: SettingsLayer) {
        var kept = SettingsLayer()
        for setting in BoxSettings.all where setting.keptByConfigSave {
            _ = setting.layOver(layer, &kept)
            setting.fillAbsent(&kept)
        }
        self.layer = kept
    }

    /// A kept setting's value (every kept setting has one).
    subscript<Value>(dynamicMember path: WritableKeyPath<SettingsLayer, Value?>) -> Value {
        get {
            guard let value = layer[keyPath: path] else { preconditionFailure("a setting config save does not keep") }
            return value
        }
        set { layer[keyPath: path] = newValue }
    }

    /// The box's strategy: its mediums and mode.
    var strategy: Strategy { Strategy(mediums: self.mediums, mode: self.mode) }

    /// The file's text: each kept setting in the table's order, those of one group (the
    /// strategy's mediums and mode) in one object on one line.
    func text(savedAtBeaconTime time: UInt32) -> String {
        var lines: [String] = []
        var group: (name: String, members: [String])?
        func closeGroup() {
            if let open = group { lines.append("  \(open.name): { \(open.members.joined(separator: ", ")) },") }
            group = nil
        }
        for setting in BoxSettings.all {
            guard let name = setting.savedGroup, let line = setting.writeSaved(layer) else { continue }
            if name.isEmpty {
                closeGroup()
                lines.append("  \(line),")
            } else if group?.name == name {
                group!.members.append(line)
            } else {
                closeGroup()
                group = (name, [line])
            }
        }
        closeGroup()
        return """
            // Saved by `config save` on the Nearcast console at beacon time \(time).
            // The daemon starts from these settings; `config save` replaces them. Remove this file
            // (and settings.json5.previous) to start from the board's defaults.
            {
              version: \(Self.formatVersion),

            """ + lines.joined(separator: "\n") + "\n}\n"
    }

    /// Parses and validates the text of a settings file called `file`.
    static func parse(_ text: String, file: String) throws(ConfigError) -> SavedSettings {
        let root: JSON5Node
        do { root = try JSON5Parser.parse(text) } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, key: "", message: error.message)
        }
        var reader = try ObjectReader(root, file: file, path: "")
        let version = try reader.requiredInt("version", in: 1...1_000)
        guard version == formatVersion else {
            throw reader.error("version", "version \(version) is not one this build reads (\(formatVersion))")
        }
        var layer = SettingsLayer()
        var group: (name: String, reader: ObjectReader)?
        for setting in BoxSettings.all {
            guard let name = setting.savedGroup else { continue }
            if let open = group, open.name != name {
                try open.reader.finish()
                group = nil
            }
            if name.isEmpty {
                try setting.readSaved(&reader, &layer)
                continue
            }
            if group == nil { group = (name, try reader.requiredObject(name)) }
            try setting.readSaved(&group!.reader, &layer)
        }
        try group?.reader.finish()
        try reader.finish()
        return SavedSettings(layer)
    }

    /// The saved settings, or nil when none were saved. A damaged file (corrupt, truncated, a
    /// version this build does not read) is reported, kept aside as `settings.json5.damaged`
    /// and the previous copy restored in its place (``GuardedFile``); with `repairing` off (the
    /// console's `config show`) the previous copy is only read, nothing is written.
    static func load(from state: StateDirectory, repairing: Bool = true, log: (String) -> Void) -> SavedSettings? {
        let file = guardedFile(in: state)
        let parsed: (String) -> SavedSettings? = { try? parse($0, file: file.path) }
        switch file.load(repair: repairing) {
        case .absent:
            return nil
        case .good(let text):
            return parsed(text)
        case .unreadable(let why):
            log("error: \(file.path): \(why); saved settings not used")
            return nil
        case .bad(let problem):
            if repairing { log("error: \(problem); no previous copy to use; saved settings not used") }
            return nil
        case .restored(let text, let problem, let keptAs, let failure):
            if repairing {
                log("error: \(problem); " + (keptAs.map { "kept aside as \($0)" } ?? "cannot keep it aside: \(failure.map { "\($0)" } ?? "")"))
            }
            log("warning: using the previous saved settings, \(file.previousPath)")
            return parsed(text)
        }
    }

    /// Saves atomically; the file being replaced becomes `settings.json5.previous` if it is good.
    func save(to state: StateDirectory, beaconTime: UInt32) throws(SystemError) {
        try Self.guardedFile(in: state).save(text(savedAtBeaconTime: beaconTime))
    }

    private static func guardedFile(in state: StateDirectory) -> GuardedFile {
        let path = state.file(fileName)
        return GuardedFile(path: path, limit: 64 * 1024) { text in
            do { _ = try parse(text, file: path); return nil } catch { return "\(error)" }
        }
    }
}

extension ConfigError {
    /// The same place with another message.
    func with(_ message: String) -> ConfigError {
        var copy = self
        copy.message = message
        return copy
    }
}
