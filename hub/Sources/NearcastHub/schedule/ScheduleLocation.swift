/// Where in an imported file something was found: what an error or a problem names so that the
/// person fixing the file goes straight there.
///
/// A CSV or an XML file is named by line (1-based, the line a record or an element starts on); a
/// JSON file by the field's path from the top, `schedule.conference.days[1].rooms["Saal 1"][3].duration`
/// (array indexes 0-based, room names quoted, as they are object keys), because a JSON export is
/// often one long line.
enum ScheduleLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file as a whole (it is empty, or its format is not one of the three).
    case file
    case line(Int)
    case lineColumn(line: Int, column: Int)
    /// A JSON field's path.
    case field(String)

    var description: String {
        switch self {
        case .file: "the file"
        case .line(let line): "line \(line)"
        case .lineColumn(let line, let column): "line \(line), column \(column)"
        case .field(let path): path
        }
    }
}
