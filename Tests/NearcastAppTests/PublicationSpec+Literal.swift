@testable import NearcastApp

/// Specs written as their text in the tests (`"direct:c0ffee@ble"`), parsed as `--publish` parses them.
extension PublicationSpec: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        do { self = try PublicationSpec.parse(text, defaultExponent: 10) } catch { preconditionFailure("\(text): \(error)") }
    }
}
