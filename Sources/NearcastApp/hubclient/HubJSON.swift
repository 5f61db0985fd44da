/// Reading the hub's JSON answers (and the box's hub record) with the config file's JSON5
/// parser: a member by key, and typed values, nil when absent or of another type.
extension JSON5Node {
    subscript(_ key: String) -> JSON5Node? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    var integer: Int? {
        if case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 { return Int(number) }
        return nil
    }

    var array: [JSON5Node]? {
        if case .array(let items) = value { return items }
        return nil
    }

    /// Parses `text`, nil when it is not JSON.
    static func parse(json text: String) -> JSON5Node? { try? JSON5Parser.parse(text) }
}

/// Writing JSON objects for the hub by hand (no Foundation in the box).
struct JSONObjectWriter {
    private var fields: [String] = []

    mutating func add(_ key: String, _ text: String) { fields.append("\(Formatting.jsonString(key)):\(Formatting.jsonString(text))") }
    mutating func add(_ key: String, _ number: Int) { fields.append("\(Formatting.jsonString(key)):\(number)") }
    mutating func add(_ key: String, strings: [String]) {
        fields.append("\(Formatting.jsonString(key)):[" + strings.map(Formatting.jsonString).joined(separator: ",") + "]")
    }
    mutating func add(_ key: String, object: JSONObjectWriter) { fields.append("\(Formatting.jsonString(key)):\(object.text)") }

    var text: String { "{" + fields.joined(separator: ",") + "}" }
}
