/// Each project's schedule in force (`ScheduleInForce`) and the rooms given a box by hand. The
/// database keeps them in `NearcastHubStorage`'s `ScheduleStore` (one document per project, so an
/// import replaces the schedule in one step); `MemoryScheduleRepository` in memory.
package protocol ScheduleRepository: Sendable {
    /// The schedule in force, `ScheduleInForce.none` before the first import.
    func inForce(project: String) async throws -> ScheduleInForce
    /// Replaces the schedule in force as a whole, in one step: `body` is given the schedule in
    /// force and returns the one to keep (`ScheduleInForce.replaced`) and what to answer. Two
    /// replacements of one project run one after the other, each given what the other kept.
    func replace<Answer: Sendable>(project: String,
                                   _ body: @escaping @Sendable (ScheduleInForce) -> (ScheduleInForce, Answer)) async throws -> Answer
    /// The projects that have imported a schedule.
    func scheduledProjects() async throws -> [String]
    /// The decks speakers uploaded for their talks: talk guid to deck id.
    func talkDecks(project: String) async throws -> [String: String]
    /// Records `deckID` as the talk's deck (replacing any earlier one).
    func setTalkDeck(project: String, guid: String, deckID: String) async throws
    /// The rooms given a box by hand: room name to beacon name.
    func roomBoxes(project: String) async throws -> [String: String]
    /// Gives `room` the box `beaconName` by hand, or (nil) takes it back to matching by name.
    func setRoomBox(project: String, room: String, beaconName: String?) async throws
}
