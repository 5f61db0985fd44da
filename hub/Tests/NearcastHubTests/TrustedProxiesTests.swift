import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import NearcastHub
import XCTest

/// The client's address behind a load balancer: `X-Forwarded-For` read right to left from a
/// trusted proxy only, and every per-address rule keyed on what it names.
final class TrustedProxiesTests: XCTestCase {
    private let proxies = try! TrustedProxies(["10.0.0.0/8", "192.0.2.1", "fd00:1::/64"])

    private func client(_ peer: String?, _ forwardedFor: String...) -> String? {
        proxies.clientAddress(peer: peer, forwardedFor: forwardedFor)
    }

    func testFromATrustedPeerTheRightmostUntrustedHopIsTheClientWhateverTheClientWroteBeforeIt() {
        // The phone wrote 203.0.113.66 itself; the balancer appended the address it saw.
        XCTAssertEqual(client("10.0.0.2", "203.0.113.66, 198.51.100.7"), "198.51.100.7")
        // Two trusted hops (a TLS terminator, then the balancer): both skipped.
        XCTAssertEqual(client("10.0.0.2", "203.0.113.66, 198.51.100.7, 192.0.2.1, 10.1.2.3"), "198.51.100.7")
        // Several header lines are one list, in order.
        XCTAssertEqual(client("10.0.0.2", "203.0.113.66", "198.51.100.7, 10.1.2.3"), "198.51.100.7")
        // A port, as some proxies write it.
        XCTAssertEqual(client("10.0.0.2", "198.51.100.7:50123"), "198.51.100.7")
        // Every hop trusted: the leftmost.
        XCTAssertEqual(client("10.0.0.2", "10.9.9.9, 192.0.2.1"), "10.9.9.9")
        // No header from a trusted peer: the peer.
        XCTAssertEqual(client("10.0.0.2"), "10.0.0.2")
    }

    func testFromAnyOtherPeerTheHeaderChangesNothing() {
        XCTAssertEqual(client("198.51.100.9", "203.0.113.66"), "198.51.100.9")
        XCTAssertEqual(client("198.51.100.9", "10.0.0.2, 192.0.2.1"), "198.51.100.9", "naming a trusted proxy does not make one")
        XCTAssertEqual(client("11.0.0.1", "203.0.113.66"), "11.0.0.1", "just past 10.0.0.0/8")
        XCTAssertEqual(client(nil, "203.0.113.66"), nil)
        XCTAssertEqual(TrustedProxies.none.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.66"]), "10.0.0.2")
    }

    func testAMalformedHopEndsTheWalkAtTheLastAddressATrustedProxyVouchedFor() {
        XCTAssertEqual(client("10.0.0.2", "garbage"), "10.0.0.2")
        XCTAssertEqual(client("10.0.0.2", "198.51.100.7, unknown, 10.1.2.3"), "10.1.2.3")
        XCTAssertEqual(client("10.0.0.2", "203.0.113.66, 198.51.100.7, not an address"), "10.0.0.2")
        for bad in ["198.51.100.700", "198.51.100.7:", "198.51.100.7:http", "[2001:db8::1", "[2001:db8::1]x", "2001:db8::1:80:zz",
                    "198.51.100.7/24", "fe80::1%eth0", String(repeating: "1", count: 5000)] {
            XCTAssertEqual(client("10.0.0.2", bad), "10.0.0.2", bad)
        }
        // Empty items (a stray comma) are nothing, not an address.
        XCTAssertEqual(client("10.0.0.2", "198.51.100.7, , "), "198.51.100.7")
    }

    func testIPv6HopsAndPeersAndOneSpellingPerAddress() {
        XCTAssertEqual(client("fd00:1::5", "2001:db8::66, 2001:DB8:0:0::7"), "2001:db8::7", "the canonical spelling")
        XCTAssertEqual(client("fd00:1::5", "[2001:db8::7]:443"), "2001:db8::7")
        XCTAssertEqual(client("fd00:1::5", "2001:db8::66, fd00:1::ffff"), "2001:db8::66")
        XCTAssertEqual(client("fd00:2::5", "2001:db8::66"), "fd00:2::5", "outside fd00:1::/64")
        // A socket on [::] sees an IPv4 balancer as ::ffff:10.0.0.2: it is 10.0.0.2, trusted.
        XCTAssertEqual(client("::ffff:10.0.0.2", "198.51.100.7"), "198.51.100.7")
        XCTAssertEqual(client("10.0.0.2", "::ffff:198.51.100.7"), "198.51.100.7", "one client, one address")
    }

    func testTheConfigKeyTakesAddressesAndNetworksAndNamesABadEntry() throws {
        let config = try HubConfigFile.parse(Data(#"{ trustedProxies: ["10.0.0.2", "10.0.0.0/8", "2001:db8::/32", "::1"] }"#.utf8),
                                             path: "hub.json5")
        XCTAssertEqual(config.trustedProxies?.description, "10.0.0.2/32, 10.0.0.0/8, 2001:db8::/32, ::1/128")
        XCTAssertNil(try HubConfigFile.parse(Data("{}".utf8), path: "hub.json5").trustedProxies)

        func refusal(_ value: String) -> String {
            do {
                _ = try HubConfigFile.parse(Data("{ trustedProxies: \(value) }".utf8), path: "hub.json5")
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(refusal(#"["10.0.0.2", "10.0.0.300"]"#),
                       "hub.json5: trustedProxies: '10.0.0.300' is not an IPv4 or IPv6 address (as 10.0.0.5 or 2001:db8::5), nor a network (10.0.0.0/8)")
        XCTAssertEqual(refusal(#"["10.0.0.0/33"]"#), "hub.json5: trustedProxies: '10.0.0.0/33': the prefix length after / must be 0 to 32")
        XCTAssertEqual(refusal(#"["10.0.0.1/8"]"#), "hub.json5: trustedProxies: '10.0.0.1/8' has bits set past its /8: the network is 10.0.0.0/8")
        XCTAssertTrue(refusal(#"["haproxy.local"]"#).hasPrefix("hub.json5: trustedProxies: 'haproxy.local' is not an IPv4"))
        XCTAssertTrue(refusal(#""10.0.0.2""#).hasPrefix("hub.json5: trustedProxies must be a list of addresses and networks"),
                      refusal(#""10.0.0.2""#))
    }

    /// The wiring, on a socket (the client at 127.0.0.1): a per-address rate (keyless requests,
    /// two at once) is spent by the address the trusted proxy forwarded, each its own; from a
    /// peer that is not trusted every request is the peer's, whatever its header says.
    func testEveryPerAddressRuleUsesTheForwardedAddressFromATrustedPeerOnly() async throws {
        var limits = HubLimits()
        limits.rates.perAddress = HubLimits.Rate(perSecond: 0.01, burst: 2)
        for (trusted, isTrusted) in [("127.0.0.0/8", true), ("10.0.0.0/8", false)] {
            let world = try await RouterWorld.make(.memory, limits: limits)
            defer { try? FileManager.default.removeItem(at: world.directory) }
            let router = buildRouter(world.hub, trustedProxies: try TrustedProxies([trusted]))
            try await Application(router: router).test(.live) { client in
                func health(_ forwardedFor: String) async throws -> HTTPResponse.Status {
                    try await client.call(.get, "/healthz", headers: [HTTPField.Name("X-Forwarded-For")!: forwardedFor]).status
                }
                var answers: [HTTPResponse.Status] = []
                for forwardedFor in ["198.51.100.7",
                                     // The client's own spoofed entry, left of what the proxy appended: still 198.51.100.7.
                                     "203.0.113.66, 198.51.100.7", "198.51.100.7",
                                     // Other clients behind the same proxy have their own budgets (behind a
                                     // proxy that is not trusted, everyone is the proxy, and spent).
                                     "198.51.100.8", "2001:db8::8"] {
                    answers.append(try await health(forwardedFor))
                }
                XCTAssertEqual(answers, [.ok, .ok, .tooManyRequests] + (isTrusted ? [.ok, .ok] : [.tooManyRequests, .tooManyRequests]), trusted)
            }
            await world.hub.present.showFeed.stop()
            await world.hub.backend.close()
        }
    }
}
