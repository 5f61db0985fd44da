/// Something in an imported file the operator should know about that does not stop the day from
/// running: a talk without speakers, a `start` that disagrees with its `date`, a time zone name that
/// disagrees with the offsets, a talk outside its day's bounds, a room guid shared by two rooms.
///
/// The file is imported with them; they are listed in the import's summary (`problems`) as their
/// `description`, `location: message`.
struct ScheduleProblem: Sendable, Hashable, CustomStringConvertible {
    var location: ScheduleLocation
    var message: String

    var description: String { "\(location): \(message)" }
}
