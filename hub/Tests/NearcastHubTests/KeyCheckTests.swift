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
    /// Projects in memory that count their reads, each taking `readTime` (a database's, so
    /// requests overlap).
    struct CountingProjects: ProjectRepository {
        let inner: MemoryProjectRepository
        var readTime: Duration = .zero
        let reads = NIOLockedValueBox(0)
        func create(name: String) async throws -> CreatedProject { try await inner.create(name: name) }
        func access(forHash hash: String) async throws -> Access? {
            reads.withLockedValue { $0 += 1 }
            if readTime > .zero { try await Task.sleep(for: readTime) }
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

    /// A room's phones behind one NAT arriving together when the key's cached second is up
    /// share one read, and a key that is a project's spends none of the address's lookup budget
    /// (CI found 300 followers through HAProxy refused as keyless: each had spent a lookup).
    func testARoomArrivingTogetherSharesOneReadAndARealKeySpendsNoLookupBudget() async throws {
        let projects = CountingProjects(inner: MemoryProjectRepository(data: MemoryHubData(clock: .system, feed: ChangeFeed())), readTime: .milliseconds(50))
        let keys = try await projects.create(name: "demo")
        let now = NIOLockedValueBox<Int64>(1_000_000)
        let presence = Presence(serviceKey: ServiceKey(privateKey: Curve25519.KeyAgreement.PrivateKey()))
        var limits = HubLimits()
        limits.guessing.keyLookupsPerSecondPerAddress = 1   // two at once
        let checker = KeyChecker(projects: projects, cache: KeyCache(), presence: presence, phoneIDs: PhoneIDs(presence: presence),
                                 clock: HubClock { now.withLockedValue { $0 } }, limiter: HubLimiter(limits))

        let phone = request(key: keys.apiKey)
        func room() async -> [CallerClass] {
            await withTaskGroup(of: CallerClass?.self) { group in
                for _ in 0..<300 {
                    group.addTask { await checker.identify(phone, address: "10.0.0.1").callerClass }
                }
                var classes: [CallerClass] = []
                for await found in group { if let found { classes.append(found) } }
                return classes
            }
        }
        let first = await room()
        XCTAssertEqual(first.count, 300)
        XCTAssertEqual(first.filter { $0 != .audience }.count, 0, "every follower is the audience, none keyless")
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 1, "one read for the room")
        // The cached second is up: the room again, and again one read, no budget asked.
        now.withLockedValue { $0 += 2_000 }
        let second = await room()
        XCTAssertEqual(second.filter { $0 != .audience }.count, 0)
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 2)

        // Made-up keys still spend the address's budget (two at once here): the third is not read.
        var madeUp: [CallerClass?] = []
        for guess in ["ncpub_guess1", "ncpub_guess2", "ncpub_guess3"] {
            madeUp.append(await checker.identify(request(key: guess), address: "10.0.0.2").callerClass)
        }
        XCTAssertEqual(madeUp, [.keyless, .keyless, .keyless])
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 4, "the third made-up key was refused unread")
        // And the real key from that address is still read when due (it is known, no budget).
        now.withLockedValue { $0 += 2_000 }
        let late = await checker.identify(request(key: keys.apiKey), address: "10.0.0.2")
        XCTAssertEqual(late.callerClass, .audience)
        XCTAssertEqual(projects.reads.withLockedValue { $0 }, 5)
    }
}
