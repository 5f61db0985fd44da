/// A talk's `duration` as schedule files write it, which is not one format (voc/schedule issue 129):
///
/// | written | read as | who writes it |
/// |---|---|---|
/// | `00:45`, `1:30`, `25:00` | hours (any number) and minutes | frab, pretalx, the XSD, the CSV |
/// | `1:02:00` from pretalx | days, hours, minutes | pretalx from 24 h on (`serialize_duration`) |
/// | `1:00:00` from anyone else | hours, minutes, seconds | the XSD's second form |
///
/// A three-part value is ambiguous (`1:00:00` is one day to pretalx and one hour to the XSD), so it is
/// read by the writer the file names (its `generator`); the importer adds a problem when it had to guess.
enum ScheduleDuration {
    /// How a value was read.
    enum Reading: Sendable, Hashable {
        case hoursMinutes
        case daysHoursMinutes
        case hoursMinutesSeconds
    }

    /// The duration in seconds and how it was read, or nil when `text` is none of the forms above
    /// (`135.0:00`, `1:75`, `-0:30`).
    static func seconds(_ text: String, threePartsAreDays: Bool) -> (seconds: Int64, reading: Reading)? {
        guard let fields = ScheduleTime.colonFields(text) else { return nil }
        if fields.count == 2 {
            guard fields[1] < 60 else { return nil }
            return (Int64(fields[0]) * 3600 + Int64(fields[1]) * 60, .hoursMinutes)
        }
        if threePartsAreDays {
            guard fields[1] < 24, fields[2] < 60 else { return nil }
            return (Int64(fields[0]) * 86_400 + Int64(fields[1]) * 3600 + Int64(fields[2]) * 60, .daysHoursMinutes)
        }
        guard fields[1] < 60, fields[2] < 60 else { return nil }
        return (Int64(fields[0]) * 3600 + Int64(fields[1]) * 60 + Int64(fields[2]), .hoursMinutesSeconds)
    }
}
