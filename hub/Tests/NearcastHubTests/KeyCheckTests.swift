import Crypto
import HTTPTypes
import Hummingbird
import Logging
@testable import NearcastHub
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import XCTest

/// A request's key is hashed and looked up once: `AddressRateMiddleware` identifies the caller
/// and `KeyMiddleware` takes that answer from the context.
final class KeyCheckTests: XCTestCase {
    /// Projects in memory that count their reads.
    struct CountingProjects: ProjectRepository {
        let inner: MemoryProjectRepository
        let reads = NIOLockedValueBox(0)
        func create(name: String) async throws -> CreatedProject { try await inner.create(name: name) }
        func access(forHash hash: String) async throws -> Access? {
            reads.withLockedValue { $0 += 1 }
            return try await inner.access(forHash: hash)
        }
    }

    private func checker(_ projects: CountingProjects) -> KeyChecker {
        let presence = Presence(serviceKey: ServiceKey(privateKey: Curve25519.KeyAgreement.PrivateKey()))
        return KeyChecker(projects: projects, cache: KeyCache(), presence: presence, phoneIDs: PhoneIDs(presence: presence),
                          clock: .system, limiter: HubLimiter(HubLimits()))
    }

    private func request(key: String?) -> Request {
        var fields = HTTPFields()
        if let key { fields[HTTPField.Name("X-Api-Key")!] = key }
        return Request(head: HTTPRequest(method: .get, scheme: "http", authority: "hub", path: "/v1/decks", headerFields: fields),
                       body: RequestBody(buffer: ByteBuffer()))
    }

    private func context() -> HubRequestContext {
        HubRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
    }

    func testTheKeyIsLookedUpOnceAndTheKeyCheckReadsTheContext() async throws {
        let projects = CountingProjects(inner: MemoryProjectRepository(data: MemoryHubData(clock: .system, feed: ChangeFeed())))
        let keys = try await projects.create(name: "demo")
        let checker = checker(projects)
        var context = context()
        let request = request(key: keys.secretKey)
        context.identity = await checker.identify(request, address: "10.0.0.1")
        XCTAssertEqual(context.identity?.callerClass, .presenter)
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 1)
        checker.cache.clear()   // a second look-up would read again: it must not happen
        let access = try await checker.access(request, context: context, manage: true)
        XCTAssertEqual(access, .manage(project: "demo"))
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 1, "the key check took the identity from the context")

        // An unknown key's refusal is found once too, and thrown by the key check.
        let unknown = self.request(key: "ncpub_nosuch")
        var refused = self.context()
        refused.identity = await checker.identify(unknown, address: "10.0.0.1")
        XCTAssertEqual(refused.identity?.callerClass, .keyless)
        do {
            _ = try await checker.access(unknown, context: refused, manage: false)
            XCTFail("an unknown key was let through")
        } catch let error as APIError {
            XCTAssertEqual(error.status, .forbidden)
        }
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 2)

        // Without an identity (the limits off, so nothing identified first), the check looks itself.
        let fresh = self.context()
        checker.cache.clear()
        let looked = try await checker.access(request, context: fresh, manage: false)
        XCTAssertEqual(looked, .manage(project: "demo"))
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 3)
        // The public key where the secret one is needed: 403 naming the need.
        let publicRequest = self.request(key: keys.apiKey)
        var reader = self.context()
        reader.identity = await checker.identify(publicRequest, address: nil)
        do {
            _ = try await checker.access(publicRequest, context: reader, manage: true)
            XCTFail("the public key managed")
        } catch let error as APIError {
            XCTAssertTrue(error.message.contains("secret key"), error.message)
        }
    }
}
