/// A room of a conference's schedule, known by its name.
///
/// The name is the room's identity for Nearcast (a box whose name equals it is that room's box),
/// because that is what every export and the CSV have in common. `guid` is kept as the export gives
/// it (pretalx always writes one since 2024.1, frab computes one, the CSV has none); it is not
/// trusted as an identity, since real exports repeat it across rooms (pretalx's DemoCon gives both
/// its rooms the same one).
struct ScheduleRoom: Sendable, Hashable {
    var name: String
    var guid: String?
}
