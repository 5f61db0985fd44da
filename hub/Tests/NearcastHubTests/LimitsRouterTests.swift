import HTTPTypes
@testable import NearcastHub
import XCTest

/// The limits a router test can reach (a router test's requests come from no address, so the
/// per-address buckets are hub/e2e/test_limits.py's, on real sockets): one key's rate, shared by
/// every address, and the hub's budget of codes that match no screen. Each refusal is a 429 in
/// the error shape with Retry-After, and another key, or a right code, is not held to it.
final class LimitsRouterTests: XCTestCase {
    func testAKeyPastItsRateIsA429WithRetryAfterAndOtherKeysGoOn() async throws {
        var limits = HubLimits()
        limits.rates.perKey = HubLimits.Rate(perSecond: 0.01, burst: 3)
        try await RouterWorld.each(limits: limits) { world, client, _ in
            for _ in 0..<3 { assertStatus(try await client.call(.get, "/v1/reactions/choices", key: world.demo.apiKey), .ok) }
            let refused = try await client.call(.get, "/v1/reactions/choices", key: world.demo.apiKey)
            assertRefusal(refused, .tooManyRequests)
            let wait = try XCTUnwrap(Int(refused.headers[.retryAfter] ?? ""), refused.text)
            XCTAssertGreaterThan(wait, 0)
            let message = refused.error["message"] as? String ?? ""
            XCTAssertTrue(message.hasPrefix("too many requests with this project's public key: at most 0.01 a second"), message)
            // The key's bucket is the key's: the secret key and another project's key are not held to it.
            assertStatus(try await client.call(.get, "/v1/decks", key: world.demo.secretKey), .ok)
            assertStatus(try await client.call(.get, "/v1/reactions/choices", key: world.other.apiKey), .ok)
        }
    }

    /// Codes that match no screen spend the hub's budget; past it every code is refused for a
    /// while, before it is compared (a guess past the budget learns nothing).
    func testCodesThatMatchNoScreenSpendTheHubsBudget() async throws {
        var limits = HubLimits()
        limits.guessing.failedCodesPerMinute = 3
        try await RouterWorld.each(limits: limits) { _, client, _ in
            for guess in ["AAAAAA", "BBBBBB", "CCCCCC"] {
                assertRefusal(try await client.call(.post, "/v1/presence", json: ["code": guess]), .forbidden, field: "code")
            }
            let refused = try await client.call(.post, "/v1/presence", json: ["code": "DDDDDD"])
            assertRefusal(refused, .tooManyRequests)
            XCTAssertNotNil(refused.headers[.retryAfter])
            XCTAssertTrue((refused.error["message"] as? String ?? "").contains("on this hub"), refused.text)
            let page = try await client.call(.get, "/j/EEEEEE")
            XCTAssertEqual(page.status, .tooManyRequests, "the QR code's page is held to the same budget")
        }
    }
}
