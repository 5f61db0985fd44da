import Hummingbird
import Metrics

/// The rooms' reach: `POST /v1/reach` from the listener page with any of the project's keys (the
/// public key in its address, or the pass a phone got for the code), once per visit and again
/// when what it heard changes; `GET /v1/reach` for the operators with the secret key, per box.
struct ReachController: Sendable {
    let reach: any ReachRepository
    let receipts: ReachReceipts
    let limiter: HubLimiter
    let clock: HubClock
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read), managers = keys.group(routes, .manage)
        let written = Counter(label: "nearcast_hub_reach_reports_total")
        readers.post("/v1/reach") { request, context in
            let access = try context.caller()
            let body = try await APIRequestDecoder.decode(ReachReport.self, from: request, limit: ReachReport.maximumBodyBytes)
            let today = ReachDay.day(ms: clock.nowMs())
            let row = try body.row(day: today)
            var changes = [row]
            if let receipt = body.receipt {
                guard let earlier = receipts.row(receipt, project: access.project) else {
                    throw APIError.invalid("receipt", "is not a receipt this hub gave for this project's reports")
                }
                // A visit that runs past midnight counts on both days: yesterday's report stays.
                if earlier.key.day == today { changes.append(ReachRow(key: earlier.key, counts: -earlier.counts)) }
            }
            // After the checks: a refused body writes nothing, so it spends nothing of the rate.
            try limiter.admitReachReport(project: access.project)
            let merged = ReachRow.merged(changes)
            // A report that changed nothing (sent again) writes nothing.
            if !merged.isEmpty {
                try await reach.add(project: access.project, box: body.beaconName, merged)
                written.increment()
            }
            return ReachReceiptJSON(receipt: receipts.receipt(project: access.project, row), day: ReachDay.date(today))
        }
        managers.get("/v1/reach") { request, context in
            let access = try context.caller()
            let kept = limiter.settings.reach.daysKept
            var days = 1
            if let given = request.uri.queryParameters["days"] {
                guard let number = Int(String(given)), (1...kept).contains(number) else {
                    throw APIError.invalid("days", "'\(given.prefix(20))' must be a whole number of days from 1 to \(kept) (the days kept)")
                }
                days = number
            }
            let today = ReachDay.day(ms: clock.nowMs())
            let rows = try await reach.rows(project: access.project, fromDay: today - Int64(days) + 1)
            return ReachSummaryJSON(rows: rows.filter { $0.key.day <= today }, days: days, daysKept: kept, today: today)
        }
        return routes
    }
}

/// `POST /v1/reach`'s answer: the receipt the visit's next report sends back, and the day (UTC)
/// the report counted on.
struct ReachReceiptJSON: ResponseEncodable, Sendable {
    var receipt: String
    var day: String
}
