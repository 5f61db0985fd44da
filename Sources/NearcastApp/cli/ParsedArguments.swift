/// What the parser found for one command, read back by name with the value's type. A value
/// that does not convert is a `UsageError` naming the option and the text.
struct ParsedArguments {
    /// The command's path for messages, e.g. "nearcast run".
    let commandPath: String
    /// What the command accepts (its node's arguments).
    let accepted: [ArgumentSpec]
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    init(commandPath: String, accepted: [ArgumentSpec]) {
        self.commandPath = commandPath
        self.accepted = accepted
    }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool {
        precondition(accepted.contains { $0.name == name && $0.kind == .flag }, "\(commandPath): no flag --\(name)")
        return flags.contains(name)
    }

    /// The value of an option (or positional), if given.
    func value<Value: ArgumentValue>(_ name: String, as type: Value.Type = Value.self) throws(UsageError) -> Value? {
        guard let text = texts(name).last else { return nil }
        return try convert(text, for: name)
    }

    /// The value of an option, or `defaultValue` when it was not given.
    func value<Value: ArgumentValue>(_ name: String, default defaultValue: Value) throws(UsageError) -> Value {
        try value(name) ?? defaultValue
    }

    /// The value of a positional or a required option; the parser has checked it is there.
    func required<Value: ArgumentValue>(_ name: String, as type: Value.Type = Value.self) throws(UsageError) -> Value {
        guard let value: Value = try value(name) else { preconditionFailure("\(commandPath): \(name) is required but was not checked") }
        return value
    }

    /// Every value of a repeatable option, in command-line order.
    func values<Value: ArgumentValue>(_ name: String, as type: Value.Type = Value.self) throws(UsageError) -> [Value] {
        var converted: [Value] = []
        for text in texts(name) { converted.append(try convert(text, for: name)) }
        return converted
    }

    private func texts(_ name: String) -> [String] {
        precondition(accepted.contains { $0.name == name && $0.kind != .flag }, "\(commandPath): no argument \(name)")
        return values[name] ?? []
    }

    private func convert<Value: ArgumentValue>(_ text: String, for name: String) throws(UsageError) -> Value {
        guard let value = Value(argument: text) else {
            let spec = accepted.first { $0.name == name }
            let label = spec?.kind == .positional ? "<\(name)>" : "--\(name)"
            throw UsageError("\(label) '\(text)': expected \(Value.expectation)")
        }
        return value
    }
}
