import Foundation
import Hummingbird
import Metrics

/// Field check results: `POST /v1beta1/fieldchecks` from the check page with any of the
/// project's keys (the public key in the page's URL, a pass, or the secret key), and
/// `GET /v1beta1/fieldchecks` for the operators with the secret key.
struct FieldCheckController: Sendable {
    let fieldChecks: any FieldCheckRepository
    let limiter: HubLimiter
    let keys: KeyChecker

    var endpoints: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        let readers = keys.group(routes, .read), managers = keys.group(routes, .manage)
        let stored = Counter(label: "nearcast_hub_field_checks_total")
        readers.post("/v1beta1/fieldchecks") { request, context in
            let access = try context.caller()
            let body = try await APIRequestDecoder.decode(FieldCheckRequest.self, from: request,
                                                          limit: FieldCheckRequest.maximumBodyBytes)
            try body.validate()
            // After the checks: a refused body writes nothing, so it spends nothing of the rate.
            try limiter.admitFieldCheck(project: access.project)
            let check = try await fieldChecks.add(project: access.project, body)
            stored.increment()
            return FieldCheckCreatedJSON(fieldCheck: check)
        }
        managers.get("/v1beta1/fieldchecks") { request, context in
            let access = try context.caller()
            var beaconName: String?
            if let given = request.uri.queryParameters["beaconName"].map(String.init) {
                try ReportFields.checkBeaconName(given)
                beaconName = given
            }
            return FieldCheckListJSON(fieldChecks: try await fieldChecks.list(project: access.project, beaconName: beaconName))
        }
        return routes
    }
}
