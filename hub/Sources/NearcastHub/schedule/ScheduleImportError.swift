/// Why a schedule file is refused. A refusal is of the whole file: nothing of it is taken, and the
/// schedule in force stays as it was.
///
/// `description` is the one line a command prints and an API answer carries, naming where first:
/// `line 7: two talks at once in room "Hall A": "Clash" (10:30-11:00) starts before "Opening" (line 2) ends (10:45)`.
struct ScheduleImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of fault, for code that acts on it (and for tests); `message` says it for people.
    enum Reason: String, Sendable, Hashable {
        /// Not JSON, XML or CSV that parses: truncated, malformed, or none of the three.
        case unreadable
        /// A field every talk (or the file) needs is absent or empty: a guid, a title, a date, a
        /// duration, a room, a CSV column.
        case missingField
        /// A field is there but of the wrong type or shape.
        case badValue
        /// A date-time, a start or a day that is no instant (`25:61`, `2026-13-01`, no offset and no zone).
        case badTime
        /// A duration that cannot be read (`135.0:00`), is zero or negative, or an `end` not after its start.
        case badDuration
        /// A talk's room is not the room it is listed under, or not one the file declares.
        case unknownRoom
        /// Two talks share a guid (or a CSV `id`, or a CSV slot).
        case duplicateGUID
        /// Two talks at once in one room.
        case overlap
        /// A CSV's zone (or a JSON/XML file's, when its dates have no offset) is missing or unknown.
        case timeZone
    }

    var reason: Reason
    var location: ScheduleLocation
    var message: String

    var description: String { "\(location): \(message)" }
}
