/// One thing a command accepts on its command line: a flag (`--json`), an option with a value
/// (`--board rpi4b`, `--board=rpi4b`), an option that may be repeated (`--publish`), or a
/// positional argument (`decode FILE`).
///
/// Nearcast parses its command line itself rather than with swift-argument-parser: that
/// package links FoundationEssentials into the binary, 7 MB of file and 3 MB of resident
/// memory, a quarter of the daemon's budget (docs/hardware-tester.md, "Size and memory").
struct ArgumentSpec: Sendable {
    enum Kind: Sendable {
        case flag
        case option
        case repeatedOption
        case positional
    }

    /// The long name without dashes (`state-dir`), or a positional's name (`file`).
    let name: String
    let kind: Kind
    /// What the value is called in help (`<name>`); options only.
    let valueName: String
    let help: String
    /// A positional is always required; an option may be.
    let isRequired: Bool

    static func flag(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, kind: .flag, valueName: "", help: help, isRequired: false)
    }

    static func option(_ name: String, value: String? = nil, required: Bool = false, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, kind: .option, valueName: value ?? name, help: help, isRequired: required)
    }

    static func repeated(_ name: String, value: String? = nil, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, kind: .repeatedOption, valueName: value ?? name, help: help, isRequired: false)
    }

    static func positional(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, kind: .positional, valueName: name, help: help, isRequired: true)
    }

    /// How the argument is written in a usage line: `--board <board>`, `--json`, `<file>`.
    var synopsis: String {
        switch kind {
        case .flag: "--\(name)"
        case .option, .repeatedOption: "--\(name) <\(valueName)>"
        case .positional: "<\(name)>"
        }
    }
}
