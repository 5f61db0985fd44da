import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Fetches a schedule from its conference tool's address (AsyncHTTPClient): only http and https,
/// redirects followed, at most `ScheduleImport.maximumBytes`, 30 s; asking only for a changed file
/// when the last one's `ETag` or `Last-Modified` is known.
struct ScheduleFetcher: Sendable {
    static let timeout = TimeAmount.seconds(30)

    /// The client fetches go through: the shared one's settings (a browser's redirects and
    /// verification) but a refused or unreachable address fails at once rather than being
    /// retried until the deadline, so a mistyped address is named in seconds.
    /// Never shut down: it lives as long as the process, as `HTTPClient.shared` does.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.timeout = .init(connect: .seconds(10), read: timeout)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    enum Answer: Sendable {
        case notModified
        case file(Data, format: ScheduleImport.Format?, etag: String?, lastModified: String?)
    }

    /// Why a fetch failed, for the operator.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func checked(_ url: String) throws(Failure) -> URL {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parsed.host != nil else {
            throw Failure(description: "\(url) is not an http or https address")
        }
        return parsed
    }

    func fetch(_ url: String, etag: String?, lastModified: String?) async throws(Failure) -> Answer {
        _ = try Self.checked(url)
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "nearcast-hub (schedule import)")
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        do {
            let response = try await Self.client.execute(request, timeout: Self.timeout)
            if response.status == .notModified { return .notModified }
            guard response.status == .ok else {
                throw Failure(description: "\(url) answered \(response.status.code) \(response.status.reasonPhrase)")
            }
            let body = try await response.body.collect(upTo: ScheduleImport.maximumBytes)
            let type = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
            let format: ScheduleImport.Format? = type.contains("json") ? .json : type.contains("xml") ? .xml
                : type.contains("csv") ? .csv : nil
            return .file(Data(body.readableBytesView), format: format, etag: response.headers.first(name: "ETag"),
                         lastModified: response.headers.first(name: "Last-Modified"))
        } catch let failure as Failure {
            throw failure
        } catch is NIOTooManyBytesError {
            throw Failure(description: "\(url) sent more than a schedule (at most \(ScheduleImport.maximumBytes >> 20) MiB)")
        } catch {
            throw Failure(description: "\(url) could not be fetched: \(error)")
        }
    }
}
