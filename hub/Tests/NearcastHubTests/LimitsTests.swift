import Foundation
@testable import NearcastHub
import XCTest

/// The limits' parts without a server: the buckets' arithmetic (with explicit times, so no test
/// waits), the stream and connection counts, and the config file's checks. The limits at work
/// over real sockets are in hub/e2e/test_limits.py.
final class LimitsTests: XCTestCase {
    func testBucketsRefuseABurstPastTheirSizeAndRefillAtTheirRate() {
        let buckets = TokenBuckets(rate: 2, burst: 3)
        let second: UInt64 = 1_000_000_000
        for _ in 0..<3 { XCTAssertNil(buckets.take("a", nowNs: 10 * second)) }
        XCTAssertEqual(buckets.take("a", nowNs: 10 * second), 1, "empty: wait one whole second (at 2/s, 0.5 s rounded up)")
        XCTAssertNil(buckets.take("b", nowNs: 10 * second), "each key has its own bucket")
        XCTAssertNil(buckets.take("a", nowNs: 10 * second + second / 2), "half a second refills one token at 2/s")
        XCTAssertNotNil(buckets.take("a", nowNs: 10 * second + second / 2))
        XCTAssertNil(buckets.take("a", nowNs: 100 * second))
        // Refilled buckets are swept away after ten seconds: a scan leaves nothing behind.
        for address in 0..<1000 { _ = buckets.take("scan\(address)", nowNs: 200 * second) }
        XCTAssertGreaterThanOrEqual(buckets.count, 1000)
        _ = buckets.take("late", nowNs: 300 * second)
        XCTAssertEqual(buckets.count, 1)
    }

    func testEachInstanceAllowsItsShareOfTheVenuesBuckets() {
        let venue = VenueShare()
        let buckets = TokenBuckets(rate: 3, burst: 9, share: venue)
        let second: UInt64 = 1_000_000_000
        venue.set(instances: 3)
        for _ in 0..<3 { XCTAssertNil(buckets.take("a", nowNs: 10 * second)) }
        XCTAssertEqual(buckets.take("a", nowNs: 10 * second), 1, "a third of the burst of 9; a token a second")
        XCTAssertNil(buckets.take("a", nowNs: 11 * second))
        venue.set(instances: 1)
        for _ in 0..<9 { XCTAssertNil(buckets.take("b", nowNs: 20 * second)) }
        XCTAssertNotNil(buckets.take("b", nowNs: 20 * second), "alone: the venue's whole burst")
        venue.set(instances: 0)
        XCTAssertEqual(venue.instances, 1, "this instance at least")
        let tiny = TokenBuckets(rate: 1, burst: 2, share: venue)
        venue.set(instances: 5)
        XCTAssertNil(tiny.take("a", nowNs: 0), "a burst split below one token still admits one")
    }

    func testChargesGoBelowZeroAndArePaidBackBeforeTheNextRequest() {
        let buckets = TokenBuckets(rate: 10, burst: 100)
        let start: UInt64 = 5_000_000_000
        XCTAssertNil(buckets.wait("a", tokens: 1, nowNs: start))
        buckets.charge("a", cost: 150, nowNs: start)
        XCTAssertEqual(buckets.wait("a", tokens: 1, nowNs: start), 6, "50 below zero plus one, at 10/s")
        XCTAssertNil(buckets.wait("a", tokens: 1, nowNs: start + 6_000_000_000))
    }

    func testStreamsAreCappedPerAddressAndPerKeyAndGiveTheirPlaceBack() throws {
        let quota = StreamQuota(perAddress: 2, perKey: 3)
        var slots: [StreamQuota.Slot] = []
        for _ in 0..<2 { slots.append(try quota.acquire(address: "a", key: "k").get()) }
        XCTAssertThrowsError(try quota.acquire(address: "a", key: "k").get()) { XCTAssertEqual($0 as? StreamQuota.Refusal, .address) }
        slots.append(try quota.acquire(address: "b", key: "k").get())
        XCTAssertThrowsError(try quota.acquire(address: "c", key: "k").get()) { XCTAssertEqual($0 as? StreamQuota.Refusal, .key) }
        XCTAssertEqual(quota.total, 3)
        slots[0].release()
        slots[0].release()   // twice counts once
        XCTAssertEqual(quota.total, 2)
        slots.removeAll()    // freed without release: the places come back too
        XCTAssertEqual(quota.total, 0)
        XCTAssertNoThrow(try quota.acquire(address: "a", key: "k").get())
    }

    func testConnectionsAreCappedInAllAndPerAddress() {
        let counter = ConnectionCounter(total: 3, perAddress: 2)
        XCTAssertNil(counter.admit("a"))
        XCTAssertNil(counter.admit("a"))
        XCTAssertEqual(counter.admit("a"), .address)
        XCTAssertNil(counter.admit("b"))
        XCTAssertEqual(counter.admit("c"), .total)
        counter.release("a")
        XCTAssertNil(counter.admit("c"))
        XCTAssertEqual(counter.open, 3)
    }

    func testTheConfigFileIsJSON5AndEveryKeyIsChecked() throws {
        let text = """
            // the venue's hub
            {
              listen: '0.0.0.0:443', redirectHTTP: "0.0.0.0:80",
              tls: { certificate: "/etc/c.pem", key: "/etc/k.pem", },
              limits: { requestsPerSecondPerAddress: 50, watchesPerKey: 7 },
            }
            """
        let config = try HubConfigFile.parse(Data(text.utf8), path: "hub.json5")
        XCTAssertEqual(config.listen, "0.0.0.0:443")
        XCTAssertEqual(config.tls, .init(certificate: "/etc/c.pem", key: "/etc/k.pem"))
        XCTAssertEqual(config.limits?.rates.perAddress.perSecond, 50)
        XCTAssertEqual(config.limits?.connections.watchesPerKey, 7)
        XCTAssertEqual(config.limits?.rates.perAddress.burst, HubLimits().rates.perAddress.burst, "an absent setting keeps its default")
        XCTAssertNil(config.database)

        func refusal(_ text: String) -> String {
            do {
                _ = try HubConfigFile.parse(Data(text.utf8), path: "hub.json5")
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertTrue(refusal("{ lsiten: 'x' }").contains("unknown key lsiten"), refusal("{ lsiten: 'x' }"))
        XCTAssertTrue(refusal("{ limits: { burst: 3 } }").contains("unknown key limits.burst"))
        XCTAssertTrue(refusal("{ tls: { cert: 'x', key: 'y' } }").contains("unknown key tls.cert"))
        XCTAssertTrue(refusal("{ limits: { connections: -1 } }").contains("limits.connections: must be a whole number"),
                      refusal("{ limits: { connections: -1 } }"))
        XCTAssertTrue(refusal("{ limits: { watchesPerKey: 1.5 } }").contains("limits.watchesPerKey: must be a whole number"))
        XCTAssertTrue(refusal("{ limits: { idleTimeoutSeconds: 0 } }").contains("limits.idleTimeoutSeconds must be a positive number"))
        XCTAssertTrue(refusal("{ listen: 443 }").contains("listen must be a string"), refusal("{ listen: 443 }"))
        XCTAssertTrue(refusal("{ listen: ").hasPrefix("hub.json5: not valid JSON5"), refusal("{ listen: "))
        XCTAssertTrue(refusal("[1]").contains("must be an object"), refusal("[1]"))
        XCTAssertTrue(refusal("{ tls: { certificate: 'x' } }").contains("tls.key is required"), refusal("{ tls: { certificate: 'x' } }"))
    }

    /// Each of the file's flat `limits` keys lands in its own field of the groups: every key set to
    /// a value no other has, read back through the groups.
    func testEveryLimitsKeyOfTheFileSetsItsGroupedField() throws {
        let text = """
            { limits: {
              enabled: false,
              requestsPerSecondPerAddress: 101, burstPerAddress: 102,
              audienceRequestsPerSecondPerAddress: 103, audienceBurstPerAddress: 104,
              presenterRequestsPerSecondPerAddress: 105, presenterBurstPerAddress: 106,
              phoneRequestsPerSecond: 107, phoneBurst: 108,
              requestsPerSecondPerKey: 109, burstPerKey: 110,
              keyLookupsPerSecondPerAddress: 111, failedCodesPerMinutePerAddress: 112, failedCodesPerMinute: 113,
              phoneIdWorkBits: 14, phoneIdsPerMinutePerAddress: 115,
              unknownTokensPerMinutePerAddress: 116, unknownTokensPerMinutePerProject: 117,
              connections: 118, connectionsPerAddress: 119, watchesPerAddress: 120, watchesPerKey: 121,
              headerTimeoutSeconds: 122.5, idleTimeoutSeconds: 123.5,
              fieldChecksPerMinutePerProject: 124, fieldChecksKeptPerProject: 125, heardPassesPerMinutePerAddress: 126,
              reachReportsPerMinutePerProject: 127, reachDaysKept: 128,
            } }
            """
        let limits = try XCTUnwrap(try HubConfigFile.parse(Data(text.utf8), path: "hub.json5").limits)
        XCTAssertFalse(limits.enabled)
        let rates = limits.rates
        XCTAssertEqual(rates.perAddress, HubLimits.Rate(perSecond: 101, burst: 102))
        XCTAssertEqual(rates.audiencePerAddress, HubLimits.Rate(perSecond: 103, burst: 104))
        XCTAssertEqual(rates.presenterPerAddress, HubLimits.Rate(perSecond: 105, burst: 106))
        XCTAssertEqual(rates.perPhone, HubLimits.Rate(perSecond: 107, burst: 108))
        XCTAssertEqual(rates.perKey, HubLimits.Rate(perSecond: 109, burst: 110))
        let guessing = limits.guessing
        XCTAssertEqual(guessing.keyLookupsPerSecondPerAddress, 111)
        XCTAssertEqual(guessing.failedCodesPerMinutePerAddress, 112)
        XCTAssertEqual(guessing.failedCodesPerMinute, 113)
        XCTAssertEqual(guessing.phoneIdWorkBits, 14)
        XCTAssertEqual(guessing.phoneIdsPerMinutePerAddress, 115)
        XCTAssertEqual(guessing.unknownTokensPerMinutePerAddress, 116)
        XCTAssertEqual(guessing.unknownTokensPerMinutePerProject, 117)
        let connections = limits.connections
        XCTAssertEqual(connections.total, 118)
        XCTAssertEqual(connections.perAddress, 119)
        XCTAssertEqual(connections.watchesPerAddress, 120)
        XCTAssertEqual(connections.watchesPerKey, 121)
        XCTAssertEqual(connections.headerTimeoutSeconds, 122.5)
        XCTAssertEqual(connections.idleTimeoutSeconds, 123.5)
        XCTAssertEqual(limits.fieldChecks.perMinutePerProject, 124)
        XCTAssertEqual(limits.fieldChecks.keptPerProject, 125)
        XCTAssertEqual(guessing.heardPassesPerMinutePerAddress, 126)
        XCTAssertEqual(limits.reach.perMinutePerProject, 127)
        XCTAssertEqual(limits.reach.daysKept, 128)
        XCTAssertEqual(HubLimits.keys.count, 29, "the file's keys, all of them set above")

        // An empty `limits` keeps every default, and the defaults are the documented ones.
        let defaults = try XCTUnwrap(try HubConfigFile.parse(Data("{ limits: {} }".utf8), path: "hub.json5").limits)
        XCTAssertEqual(defaults, HubLimits())
        XCTAssertEqual(defaults.rates.perAddress, HubLimits.Rate(perSecond: 200, burst: 400))
        XCTAssertEqual(defaults.connections.total, 20_000)
        XCTAssertEqual(defaults.fieldChecks.keptPerProject, 10_000)
        XCTAssertEqual(defaults.reach.daysKept, 30)
    }

    /// The words of each refusal of a `limits` setting, whole: operators read them, and the
    /// config file's names are flat whatever shape `HubLimits` has inside.
    func testTheLimitsRefusalsSayWhatTheyAlwaysSaid() {
        func refusal(_ limits: String) -> String {
            do {
                _ = try HubConfigFile.parse(Data("{ limits: { \(limits) } }".utf8), path: "hub.json5")
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(refusal("burst: 3"), "hub.json5: unknown key limits.burst (known: audienceBurstPerAddress, "
                       + "audienceRequestsPerSecondPerAddress, burstPerAddress, burstPerKey, connections, connectionsPerAddress, "
                       + "enabled, failedCodesPerMinute, failedCodesPerMinutePerAddress, fieldChecksKeptPerProject, "
                       + "fieldChecksPerMinutePerProject, headerTimeoutSeconds, heardPassesPerMinutePerAddress, idleTimeoutSeconds, "
                       + "keyLookupsPerSecondPerAddress, "
                       + "phoneBurst, phoneIdWorkBits, phoneIdsPerMinutePerAddress, phoneRequestsPerSecond, presenterBurstPerAddress, "
                       + "presenterRequestsPerSecondPerAddress, reachDaysKept, reachReportsPerMinutePerProject, "
                       + "requestsPerSecondPerAddress, requestsPerSecondPerKey, "
                       + "unknownTokensPerMinutePerAddress, unknownTokensPerMinutePerProject, watchesPerAddress, watchesPerKey)")
        XCTAssertEqual(refusal("enabled: 1"), "hub.json5: limits.enabled must be true or false")
        XCTAssertEqual(refusal("burstPerKey: 'x'"), "hub.json5: limits.burstPerKey must be a number")
        XCTAssertEqual(refusal("connectionsPerAddress: 0"),
                       "hub.json5: limits.connectionsPerAddress: must be a whole number from 1 to 10000000, not 0.0")
        XCTAssertEqual(refusal("fieldChecksKeptPerProject: 2.5"),
                       "hub.json5: limits.fieldChecksKeptPerProject: must be a whole number from 1 to 10000000, not 2.5")
        XCTAssertEqual(refusal("phoneRequestsPerSecond: 0"), "hub.json5: limits.phoneRequestsPerSecond must be a positive number, not 0.0")
        XCTAssertEqual(refusal("unknownTokensPerMinutePerProject: -3"),
                       "hub.json5: limits.unknownTokensPerMinutePerProject must be a positive number, not -3.0")
        XCTAssertEqual(refusal("phoneIdWorkBits: 33"), "hub.json5: limits.phoneIdWorkBits must be 0 to 32, not 33")
        XCTAssertEqual(refusal("phoneIdWorkBits: 0"), "accepted")
        XCTAssertEqual(refusal("burstPerKey: 0.5"), "hub.json5: limits.burstPerAddress and burstPerKey must be at least 1")
        XCTAssertEqual(refusal("burstPerAddress: 0.5"), "hub.json5: limits.burstPerAddress and burstPerKey must be at least 1")
    }
}
