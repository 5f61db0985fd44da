import HTTPTypes
import Hummingbird
import Logging

/// Inside the client-gone middleware: an error no route turned into an ``APIError`` still gets
/// the API's error shape, and so do the framework's own refusals (a 404 for a path no route
/// takes, which Hummingbird answers with an empty body). The database not answering (``StorageHealth/isUnavailable(_:)``) is a
/// 503 with Retry-After, so phones and boxes retry while PostgreSQL restarts instead of reading a
/// bare 500 as "the hub is broken"; anything else is a 500 whose details go to the log only (they
/// may name tables, files or addresses), with the method and path (not the query: `?key=`).
struct UnexpectedErrorMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext

    /// What a client is told to wait before trying again while the database does not answer.
    static let retryAfterSeconds = 2

    let storage: any StorageHealth
    let logger: Logger

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            // The framework's own refusals (no such route, a body it cannot read) in the same
            // shape as every other refusal, naming what was asked (the path, not the query).
            var message = error.body ?? ""
            if message.isEmpty {
                message = error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)"
                    : "\(error.status.reasonPhrase.lowercased()): \(request.method) \(request.uri.path)"
            }
            throw APIError(error.status, message)
        } catch let error where error is any HTTPResponseError || ClientGoneMiddleware.isClientGone(error) {
            throw error
        } catch {
            let route = "\(request.method) \(request.uri.path)"
            if storage.isUnavailable(error) {
                logger.warning("\(route): the database does not answer: \(storage.describe(error))")
                var answer = APIError(.serviceUnavailable, "the database does not answer; try again shortly")
                answer.retryAfterSeconds = Self.retryAfterSeconds
                throw answer
            }
            logger.error("\(route) failed: \(storage.describe(error))")
            throw APIError(.internalServerError, "the hub could not answer this request (its log says why)")
        }
    }
}
