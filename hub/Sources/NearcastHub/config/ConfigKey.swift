/// A setting's name in the config file, as a key for Decodable.
struct ConfigKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where K == ConfigKey {
    /// A count or a number of seconds: read as a number, so 1.5 or 1e20 is named, not rounded or
    /// trapped on; nil when the setting is absent.
    func wholeNumber(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        let key = ConfigKey(stringValue: name)
        guard let given = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard given == given.rounded(), given >= Double(range.lowerBound), given <= Double(range.upperBound) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(given)")
        }
        return Int(given)
    }
}
