/// The talk a speaker's address (`/upload/TOKEN`, `TalkUploads`) names, read back for its page, its
/// upload and its figures: one lookup, so every route under the address refuses alike.
struct SpeakerTalk: Sendable {
    let project: String
    let talk: ScheduledTalk
    /// The deck its speaker uploaded, nil until one is.
    let deck: String?
    /// The address's token, for the page's links.
    let token: String

    /// The talk `token` names; a 404 for an address this hub did not make (or one changed by a
    /// character) or a talk no longer in the schedule.
    static func find(token: String?, uploads: TalkUploads, schedules: any ScheduleRepository) async throws -> SpeakerTalk {
        guard let token, let (project, guid) = uploads.talk(token: token) else {
            throw APIError(.notFound, "this upload address is not one of this hub's: ask the venue for your talk's address")
        }
        let inForce = try await schedules.inForce(project: project)
        guard let talk = inForce.schedule.talk(guid: guid) else {
            throw APIError(.notFound, "this talk is no longer in the schedule")
        }
        return SpeakerTalk(project: project, talk: talk, deck: try await schedules.talkDecks(project: project)[guid], token: token)
    }
}
