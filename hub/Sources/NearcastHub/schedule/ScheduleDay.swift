/// A programme day of a conference, as the export nests its talks.
///
/// A day is the export's own `day` (pretalx's run 04:00 to 03:59 the next morning; frab's are what
/// the organisers set, Camp 2019's 09:00 to 04:00), never a calendar date computed from a talk, so a
/// talk at 01:00 belongs to the evening before. `startMs`/`endMs` are the day's bounds when the file
/// gives them (`day_start`/`day_end`, the XML's `start`/`end`); a talk outside them is a problem the
/// operator sees, not a refusal (pretalx nests 03:00 talks before their day's 04:00 start).
struct ScheduleDay: Sendable, Hashable {
    /// 1-based, as in the export.
    var index: Int
    /// The day's date as written, `YYYY-MM-DD`.
    var date: String
    var startMs: Int64?
    var endMs: Int64?
}
