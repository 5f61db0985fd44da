/// A validation error in a JSON5 file: which file, where, which key, and what is wrong.
///
/// ```
/// boards/rpi4b.json5:14:21: leds.status.line: 60 is out of range for chip pinctrl-bcm2711 (0...57)
/// ```
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    /// Dotted path of the key, e.g. `leds.status.line`; empty for the file as a whole.
    public var key: String
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, key: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    public var description: String {
        var place = file
        if let line, let column { place += ":\(line):\(column)" }
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}

/// Reads one JSON5 object's members with type and range checks, remembering which keys were
/// read so that ``finish()`` can reject the ones nobody asked for (a misspelt key is an error,
/// not a silently ignored setting).
public struct ObjectReader {
    public let file: String
    public let path: String
    public let node: JSON5Node
    private let members: [(key: String, value: JSON5Node)]
    private var used: Set<String> = []

    /// Wraps `node`, which must be an object.
    public init(_ node: JSON5Node, file: String, path: String) throws(ConfigError) {
        self.file = file
        self.path = path
        self.node = node
        guard case .object(let members) = node.value else {
            throw ConfigError(file: file, line: node.line, column: node.column, key: path,
                              message: "expected an object, found \(node.value.typeName)")
        }
        self.members = members
    }

    /// The dotted path of `key` below this object.
    public func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The keys present, in file order.
    public var keys: [String] { members.map(\.key) }

    /// The node for `key`, marking it as known; nil when absent.
    public mutating func node(_ key: String) -> JSON5Node? {
        used.insert(key)
        return members.first { $0.key == key }?.value
    }

    /// An error about `key` (at its value when present, else at this object).
    public func error(_ key: String, _ message: String, at node: JSON5Node? = nil) -> ConfigError {
        let place = node ?? members.first { $0.key == key }?.value ?? self.node
        return ConfigError(file: file, line: place.line, column: place.column, key: path(of: key), message: message)
    }

    /// A required member.
    public mutating func required(_ key: String) throws(ConfigError) -> JSON5Node {
        guard let node = node(key) else { throw error(key, "missing (required)") }
        return node
    }

    public mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let node = node(key) else { return nil }
        guard case .string(let value) = node.value else {
            throw error(key, "expected a string, found \(node.value.typeName)")
        }
        return value
    }

    public mutating func requiredString(_ key: String) throws(ConfigError) -> String {
        guard let value = try string(key) else { throw error(key, "missing (required)") }
        return value
    }

    public mutating func int(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let node = node(key) else { return nil }
        guard case .number(let value) = node.value, value.isFinite, value == value.rounded(),
              abs(value) < 1e15 else {
            throw error(key, "expected a whole number, found \(Self.show(node.value))")
        }
        guard range.contains(Int(value)) else {
            throw error(key, "\(Int(value)) is out of range (\(range.lowerBound)...\(range.upperBound))")
        }
        return Int(value)
    }

    public mutating func requiredInt(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let value = try int(key, in: range) else { throw error(key, "missing (required)") }
        return value
    }

    public mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let node = node(key) else { return nil }
        guard case .number(let value) = node.value, value.isFinite else {
            throw error(key, "expected a number, found \(Self.show(node.value))")
        }
        guard range.contains(value) else {
            throw error(key, "\(Formatting.fixed(value, decimals: 3)) is out of range (\(Formatting.fixed(range.lowerBound, decimals: 1))...\(Formatting.fixed(range.upperBound, decimals: 1)))")
        }
        return value
    }

    public mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard case .bool(let value) = node.value else {
            throw error(key, "expected true or false, found \(node.value.typeName)")
        }
        return value
    }

    /// A list of strings.
    public mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let node = node(key) else { return nil }
        guard case .array(let items) = node.value else {
            throw error(key, "expected a list of strings, found \(node.value.typeName)")
        }
        var values: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let value) = item.value else {
                throw error(key, "item \(index + 1): expected a string, found \(item.value.typeName)", at: item)
            }
            values.append(value)
        }
        return values
    }

    /// A string that must be one of `choices`.
    public mutating func choice(_ key: String, _ choices: [String]) throws(ConfigError) -> String? {
        guard let value = try string(key) else { return nil }
        guard choices.contains(value) else {
            throw error(key, "'\(value)' is not one of \(choices.joined(separator: ", "))")
        }
        return value
    }

    /// A nested object.
    public mutating func object(_ key: String) throws(ConfigError) -> ObjectReader? {
        guard let node = node(key) else { return nil }
        return try ObjectReader(node, file: file, path: path(of: key))
    }

    public mutating func requiredObject(_ key: String) throws(ConfigError) -> ObjectReader {
        guard let reader = try object(key) else { throw error(key, "missing (required)") }
        return reader
    }

    /// Rejects any key that was never asked for.
    public func finish() throws(ConfigError) {
        let known = used.sorted()
        for member in members where !used.contains(member.key) {
            let hint = known.isEmpty ? "" : " (known keys: \(known.joined(separator: ", ")))"
            throw ConfigError(file: file, line: member.value.line, column: member.value.column,
                              key: path(of: member.key), message: "unknown key\(hint)")
        }
    }

    private static func show(_ value: JSON5Value) -> String {
        switch value {
        case .number(let n): return "\(n)"
        case .string(let s): return "\"\(s)\""
        default: return value.typeName
        }
    }
}
