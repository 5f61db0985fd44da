import NearcastCore

/// A type an option's text converts to. `expectation` completes "expected ..." in the error
/// for text that does not convert.
protocol ArgumentValue {
    init?(argument: String)
    static var expectation: String { get }
}

extension String: ArgumentValue {
    init?(argument: String) { self = argument }
    static var expectation: String { "text" }
}

extension Int: ArgumentValue {
    init?(argument: String) { self.init(argument) }
    static var expectation: String { "an integer" }
}

extension UInt64: ArgumentValue {
    init?(argument: String) { self.init(argument) }
    static var expectation: String { "a whole number of 0 or more" }
}

extension Double: ArgumentValue {
    init?(argument: String) { self.init(argument) }
    static var expectation: String { "a number" }
}

extension Float: ArgumentValue {
    init?(argument: String) { self.init(argument) }
    static var expectation: String { "a number" }
}

extension ModemBand: ArgumentValue {
    init?(argument: String) { self.init(name: argument) }
    static var expectation: String { "high or low" }
}

extension BandSelection: ArgumentValue {
    init?(argument: String) { self.init(name: argument) }
    static var expectation: String { "high, low or both" }
}

extension TokenKind: ArgumentValue {
    init?(argument: String) { self.init(rawValue: argument) }
    static var expectation: String { "direct or eid" }
}
