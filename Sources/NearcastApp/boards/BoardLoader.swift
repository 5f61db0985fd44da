import NearcastCore
import NearcastDrivers

/// Finds, parses and validates board files.
///
/// A board is named either by path (anything containing `/` or ending in `.json5`) or by name,
/// looked up in, in order: `$NEARCAST_BOARDS_DIR`, `./boards`, `../share/nearcast/boards` next to
/// the executable (the installed layout), `/usr/share/nearcast/boards`, and a `boards/` folder
/// above the executable (a development build inside the source tree).
public enum BoardLoader {
    /// The directories searched for board names, in order, existing ones only.
    public static func searchPath() -> [String] {
        var candidates: [String] = []
        if let custom = FileSystem.environment("NEARCAST_BOARDS_DIR") { candidates.append(custom) }
        candidates.append("boards")
        if let exe = FileSystem.executablePath() {
            var dir = FileSystem.directoryName(of: exe)
            candidates.append(dir + "/../share/nearcast/boards")
            candidates.append("/usr/share/nearcast/boards")
            for _ in 0..<5 {
                dir = FileSystem.directoryName(of: dir)
                candidates.append(dir + "/boards")
            }
        } else {
            candidates.append("/usr/share/nearcast/boards")
        }
        var seen: Set<String> = []
        return candidates.filter { FileSystem.isDirectory($0) && seen.insert($0).inserted }
    }

    /// The path a board name or path refers to.
    public static func resolve(_ nameOrPath: String) throws(ConfigError) -> String {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json5") { return nameOrPath }
        guard !nameOrPath.isEmpty else {
            throw ConfigError(file: "--board", key: "", message: "empty board name")
        }
        let directories = searchPath()
        for directory in directories where FileSystem.exists("\(directory)/\(nameOrPath).json5") {
            return "\(directory)/\(nameOrPath).json5"
        }
        let known = Set(directories.flatMap { boardNames(in: $0) }).sorted()
        let list = known.isEmpty ? "no board files found" : "known boards: \(known.joined(separator: ", "))"
        throw ConfigError(file: nameOrPath, key: "", message: "no such board (\(list))")
    }

    /// Board names (file names without `.json5`) in a directory.
    public static func boardNames(in directory: String) -> [String] {
        ((try? FileSystem.list(directory)) ?? []).filter { $0.hasSuffix(".json5") }.map { String($0.dropLast(6)) }
    }

    /// Loads and validates the board named or at `nameOrPath`.
    public static func load(_ nameOrPath: String) throws(ConfigError) -> Board {
        let path = try resolve(nameOrPath)
        let text: String
        do {
            text = try FileSystem.readText(path)
        } catch {
            throw ConfigError(file: path, key: "", message: "cannot read: \(error.message)")
        }
        return try parse(text, file: path)
    }

    /// Parses and validates board text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Board {
        let root: JSON5Node
        do {
            root = try JSON5Parser.parse(text)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, key: "", message: error.message)
        }
        return try BoardValidator.validate(root, file: file)
    }
}
