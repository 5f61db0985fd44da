/// One talk of a conference's schedule: what a room shows from `startMs` until `endMs`.
///
/// Times are absolute instants (milliseconds since the Unix epoch, UTC), read from the export's own
/// `date` with its offset, so a talk after midnight, a DST change inside the conference or a room in
/// another zone needs no further arithmetic. The interval is half-open, `[startMs, endMs)`: a talk
/// ending at 11:00 and the next starting at 11:00 touch without overlapping.
///
/// ```swift
/// ScheduledTalk(guid: "a0a0fcfe-b7fb-46e3-84b6-97a5406016b4", title: "Opening Ceremony",
///               persons: ["jinxx", "smtw"], room: "Curie",
///               startMs: 1_566_378_000_000, endMs: 1_566_379_800_000, day: 1)
/// ```
struct ScheduledTalk: Sendable, Hashable {
    /// The talk's identity across re-imports: the export's `guid` (pretalx and frab keep it when a
    /// talk moves or is retitled), or for a CSV one derived from its `id` column or its slot.
    var guid: String
    var title: String
    /// The speakers' names as the export gives them, in its order; may be empty.
    var persons: [String]
    /// The room's name, as written in the export: what a box's name is matched against.
    var room: String
    var startMs: Int64
    var endMs: Int64
    /// The programme day the export nests the talk in (its 1-based `index`; for a CSV, the rank of
    /// its `day` among the file's days). A talk past midnight stays in the day it belongs to.
    var day: Int

    var durationMs: Int64 { endMs - startMs }

    /// Whether the talk is on stage at `nowMs`: `startMs <= nowMs < endMs`.
    func isOn(atMs nowMs: Int64) -> Bool {
        startMs <= nowMs && nowMs < endMs
    }
}
