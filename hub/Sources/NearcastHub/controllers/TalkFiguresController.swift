import Hummingbird
import NIOCore

/// A talk's reactions for its speaker, under the talk's own address (no key: the token is the
/// capability, as for the upload, `TalkUploads`): `GET /upload/TOKEN/reactions.csv` for a
/// spreadsheet, `GET /upload/TOKEN/reactions.json` for a program. The page at the address draws
/// the same figures (`TalkUploadController`). An address the hub did not make is a 404.
struct TalkFiguresController: Sendable {
    let schedules: any ScheduleRepository
    let uploads: TalkUploads
    let figures: TalkFigureReader
    let clock: HubClock

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get("/upload/:token/reactions.csv") { _, context in
            let figures = try await read(context)
            // A capability's answer: never kept by a cache on the way.
            return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                                                   .contentDisposition: "attachment; filename=\"\(TalkFiguresCSV.fileName(figures.talk))\""],
                            body: .init(byteBuffer: ByteBuffer(string: TalkFiguresCSV.text(figures))))
        }
        routes.get("/upload/:token/reactions.json") { _, context in
            EditedResponse(headers: [.cacheControl: "no-store"], response: TalkFiguresJSON(try await read(context)))
        }
        return routes
    }

    private func read(_ context: HubRequestContext) async throws -> TalkFigures {
        let speaker = try await SpeakerTalk.find(token: context.parameters.get("token"), uploads: uploads, schedules: schedules)
        return try await figures.figures(of: speaker, nowMs: clock.nowMs())
    }
}
