import Hummingbird

/// One programme day at a glance for the operators' page (`GET /v1/day`, secret key): every room
/// with its box and its talks of the day (`DayOverview`).
struct DayController: Sendable {
    let overview: DayOverview
    let clock: HubClock
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        keys.group(routes, .manage).get("/v1/day") { request, context in
            let project = try context.caller().project
            var index: Int?
            if let given = request.uri.queryParameters["day"] {
                guard let number = Int(String(given)), number >= 1 else {
                    throw APIError.invalid("day", "give the day's index, 1 for the schedule's first day")
                }
                index = number
            }
            return try await overview.day(project: project, index: index, nowMs: clock.nowMs())
        }
        return routes
    }
}
