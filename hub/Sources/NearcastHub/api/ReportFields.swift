import Foundation

/// The checks the audience's anonymous reports share (a field check's result, a visit's reach
/// report): the box named as the API names beacons, the kind of phone as short one-line labels,
/// numbers inside their ranges. Each refusal is a 400 naming the field by its JSON path.
package enum ReportFields {
    /// A label's most characters (`platform`, `browser`): a kind of phone, never a user agent.
    package static let maximumLabelCharacters = 64

    /// `beacons/3!HEX` or `beacons/4!HEX`, lowercase hex, as beacons are named everywhere else.
    package static func checkBeaconName(_ name: String) throws(APIError) {
        let prefix = "beacons/"
        guard name.hasPrefix(prefix) else {
            throw APIError.invalid("beaconName", "'\(name.prefix(80))' must be beacons/3!HEX (Eddystone) or beacons/4!HEX (EID)")
        }
        _ = try RequestSupport.beaconName(id: String(name.dropFirst(prefix.count)))
    }

    /// The 404 for a report naming a box that is not one of the caller's project's active beacons
    /// (another project's is as unknown as none).
    package static func unknownBeacon(_ beaconName: String) -> APIError {
        APIError(.notFound, "beaconName: \(beaconName) is not a beacon of this project", field: "beaconName")
    }

    /// A short one-line label: not blank, at most 64 characters, no control character.
    package static func checkLabel(_ value: String, field: String) throws(APIError) {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw APIError.invalid(field, "must not be empty") }
        // Counted in code points, as JSON Schema's maxLength (hub/openapi.yaml) and JavaScript count
        // them; checkFreeText counts characters, of which one may hold many code points.
        guard value.unicodeScalars.count <= maximumLabelCharacters else {
            throw APIError.invalid(field, "is longer than \(maximumLabelCharacters) characters")
        }
        try RequestSupport.checkFreeText(value, field: field, characters: maximumLabelCharacters)
        // checkFreeText lets tabs and line breaks through (a description has lines); a label has none.
        guard !value.contains(where: { $0 == "\t" || $0.isNewline }) else {
            throw APIError.invalid(field, "must be one line of text (no tab or line break)")
        }
    }

    /// Each of a report's bands (`bands[N].band`) named once, `high` or `low`: calls `check` with
    /// each band's name and its field's path (`bands[1]`) for what else the band holds.
    package static func checkBands<Band>(_ bands: [Band], name: (Band) -> String,
                                         _ check: (Band, String) throws(APIError) -> Void) throws(APIError) {
        var seen = Set<String>()
        for (index, band) in bands.enumerated() {
            let field = "bands[\(index)]", named = name(band)
            guard FieldCheckBand.names.contains(named) else {
                throw APIError.invalid(field + ".band", "'\(named.prefix(40))' must be high or low")
            }
            guard seen.insert(named).inserted else { throw APIError.invalid(field + ".band", "\(named) is listed twice") }
            try check(band, field)
        }
    }

    /// A finite number inside `range`.
    package static func check(_ value: Double, _ range: ClosedRange<Double>, field: String) throws(APIError) {
        guard value.isFinite, range.contains(value) else {
            throw APIError.invalid(field, "\(value) is outside \(format(range.lowerBound))...\(format(range.upperBound))")
        }
    }

    /// A whole number inside `range` (JSON has one kind of number: 2.5 is read, then refused here).
    package static func whole(_ value: Double, _ range: ClosedRange<Int64>, field: String) throws(APIError) -> Int64 {
        guard let whole = Int64(exactly: value), range.contains(whole) else {
            throw APIError.invalid(field, "\(value) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return whole
    }

    private static func format(_ value: Double) -> String { String(Int(value)) }
}
