import Foundation

/// The receipt a reach report is answered with: the row it counted in and its counts, signed by
/// the hub (`Presence.sign`, a domain of its own). The page sends it with its visit's next report,
/// and the hub takes those counts back before adding the new ones: the visit counts as one phone
/// however often it reports, and the hub keeps nothing about the visit meanwhile.
///
/// A receipt holds what the phone counted, not who it is: no random part, no time finer than
/// the day, so two phones that reported the same hold the same text. Only the hub can make one,
/// so a client takes back only counts that were added; one that sends a receipt again takes its
/// counts back again (the rows' sums are then clamped at zero when read), within the project's
/// rate of reports.
struct ReachReceipts: Sendable {
    static let prefix = "ncreach_"
    private static let domain = Data("reach v1\n".utf8)

    let presence: Presence

    /// The receipt for `row`, counted for `project`.
    func receipt(project: String, _ row: ReachRow) -> String {
        let key = row.key
        let fields = [project, String(key.day), key.beaconName, key.platform, key.browser, key.joinedBy.rawValue,
                      row.counts.values.map(String.init).joined(separator: ",")]
        return presence.sign(fields, prefix: Self.prefix, domain: Self.domain)
    }

    /// The row a receipt the hub gave for `project` counted in, or nil for a text the hub did not
    /// make, another project's, or one whose counts another version of the hub laid out.
    func row(_ text: String, project: String) -> ReachRow? {
        guard let fields = presence.signedFields(text, prefix: Self.prefix, domain: Self.domain,
                                                 maximumCharacters: ReachReport.maximumReceiptCharacters),
              fields.count == 7, fields[0] == project, let day = Int64(fields[1]), let joined = ReachJoin(rawValue: fields[5])
        else { return nil }
        let values = fields[6].split(separator: ",", omittingEmptySubsequences: false).compactMap { Int64($0) }
        guard let counts = ReachCounts(values: values) else { return nil }
        return ReachRow(key: ReachRowKey(beaconName: fields[2], day: day, platform: fields[3], browser: fields[4], joinedBy: joined),
                        counts: counts)
    }
}
