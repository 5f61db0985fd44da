import Foundation

/// Reads a schedule file, whichever of the three formats it is, into a checked `ConferenceSchedule`,
/// or refuses it as a whole.
///
/// ```swift
/// let result = try ScheduleImport.read(bytes, options: .init(timeZone: "Europe/Berlin"))
/// result.summary   // {"rooms": 2, "talks": 36, "days": 3, "problems": ["schedule.conference.time_zone_name: …"]}
/// ```
///
/// What is refused and what is only a problem: `ScheduleImportError.Reason` and `ScheduleProblem`;
/// the formats: `FrabJSONReader`, `FrabXMLReader`, `ScheduleCSVReader`; all of it for people:
/// docs/schedule-import.md. Pure: no storage, no clock, no network; the caller decides what to do
/// with the result (`ScheduleChange` against the schedule in force).
enum ScheduleImport {
    /// The three formats, told apart by their first character (`detect`).
    enum Format: String, Sendable, Hashable, CaseIterable {
        case json
        case xml
        case csv

        /// `{` (or `[`) is JSON, `<` is XML, anything else is read as CSV (after a BOM and white space).
        static func detect(_ data: Data) -> Format? {
            var bytes = data.prefix(4096)[...]
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
            case UInt8(ascii: "<"): return .xml
            default: return .csv
            }
        }
    }

    /// What the import is told besides the file.
    struct Options: Sendable, Hashable {
        /// The IANA zone of a CSV's wall times (`--time-zone`), and of a JSON/XML file's dates that
        /// have no offset when the file has no `time_zone_name`. Dates with an offset never use it.
        var timeZone: String?
        /// The format, when the caller knows it (a Content-Type); nil to detect it from the content.
        var format: Format?

        init(timeZone: String? = nil, format: Format? = nil) {
            self.timeZone = timeZone
            self.format = format
        }
    }

    /// An imported schedule and what the operator should know about it.
    struct Result: Sendable, Hashable {
        var format: Format
        var schedule: ConferenceSchedule
        var problems: [ScheduleProblem]

        /// The answer of `nearcast-hub schedule import` and `PUT /v1/schedule`: counts as the file has them.
        var summary: Summary {
            Summary(rooms: schedule.rooms.count, talks: schedule.talks.count, days: schedule.dayCount,
                    problems: problems.map(\.description))
        }
    }

    /// `{"rooms": N, "talks": M, "days": D, "problems": ["where: what", …]}`.
    struct Summary: Sendable, Hashable, Codable {
        var rooms: Int
        var talks: Int
        var days: Int
        var problems: [String]
    }

    /// Exports larger than this are refused before parsing (a 500-talk export is 1-2.5 MB).
    static let maximumBytes = 32 << 20

    static func read(_ data: Data, options: Options = Options()) throws(ScheduleImportError) -> Result {
        guard data.count <= maximumBytes else {
            throw ScheduleImportError(reason: .unreadable, location: .file,
                                      message: "\(data.count) bytes is more than a schedule (at most \(maximumBytes >> 20) MiB)")
        }
        guard let format = options.format ?? Format.detect(data) else {
            throw ScheduleImportError(reason: .unreadable, location: .file, message: "the file is empty")
        }
        var fallbackZone: TimeZone?
        if let name = options.timeZone {
            guard let zone = TimeZone(identifier: name) else {
                throw ScheduleImportError(reason: .timeZone, location: .file, message: "\"\(name)\" is not an IANA time zone name (Europe/Berlin)")
            }
            fallbackZone = zone
        }
        let draft: ScheduleDraft
        switch format {
        case .json: draft = try FrabJSONReader.read(data, fallbackZone: fallbackZone)
        case .xml: draft = try FrabXMLReader.read(data, fallbackZone: fallbackZone)
        case .csv: draft = try ScheduleCSVReader.read(data, zoneName: options.timeZone)
        }
        let (schedule, problems) = try draft.checked()
        return Result(format: format, schedule: schedule, problems: problems)
    }
}
