import Foundation
@testable import NearcastHub
@testable import NearcastHubStorage
import XCTest

/// The venue's counts (`VenueRepository`) in memory and in SQLite: the phones that earned an id
/// by hearing, the passes for a code under their cap, the boxes heard, and (in a database) the
/// instances alive. Several instances on one PostgreSQL are in hub/e2e/test_venue_rules.py.
final class VenueRepositoryTests: XCTestCase {
    let show = BeaconRef(project: "demo", beaconName: "beacons/4!00")

    func testPhonesArePerShowAndCountedOnceAndPassesStopAtTheCapUntilTheyExpire() async throws {
        for storage in RouterWorld.Storage.allCases {
            let world = try await RouterWorld.make(storage)
            defer { try? FileManager.default.removeItem(at: world.directory) }
            let venue = world.hub.repositories.venue
            for identity in ["a", "b", "a"] { try await venue.recordHeardPhone(show, startedMs: 1_000, identity: identity, nowMs: 5_000) }
            let phones = try await venue.heardPhones(show, startedMs: 1_000)
            XCTAssertEqual(phones, 2, "\(storage): one phone is one phone")
            let otherShow = try await venue.heardPhones(show, startedMs: 2_000)
            XCTAssertEqual(otherShow, 0, "\(storage): a show started anew counts from none")
            var given = 0
            for _ in 0..<5 where try await venue.admitCodePass(show, limit: 3, nowMs: 10_000) { given += 1 }
            XCTAssertEqual(given, 3, "\(storage)")
            let counted = try await venue.codePasses(show, nowMs: 10_000)
            XCTAssertEqual(counted, 3, "\(storage)")
            let later = try await venue.admitCodePass(show, limit: 3, nowMs: 10_000 + VenueWindows.passMilliseconds)
            XCTAssertTrue(later, "\(storage): a pass's lifetime later the cap has room again")
            await world.hub.backend.close()
        }
    }

    func testSQLiteIsOneInstancesAndKeepsTheBoxesHeardByAny() async throws {
        let world = try await RouterWorld.make(.sqlite)
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let venue = world.hub.repositories.venue
        _ = try await venue.heartbeat(instance: "one", nowMs: 100_000)
        let two = try await venue.heartbeat(instance: "two", nowMs: 101_000)
        XCTAssertEqual(two, 1, "processes on one SQLite file are not a venue's instances (PostgreSQL's count: test_venue_rules.py)")
        try await venue.recordHeardPhone(show, startedMs: 1_000, identity: "a", nowMs: 101_000)
        _ = try await venue.admitCodePass(show, limit: 3, nowMs: 101_000)
        _ = try await venue.heartbeat(instance: "one", nowMs: 101_000 + VenueWindows.phoneMilliseconds + 1)
        let forgotten = (try await venue.heardPhones(show, startedMs: 1_000), try await venue.codePasses(show, nowMs: 101_000))
        XCTAssertTrue(forgotten == (0, 0), "a heartbeat clears phones and passes past their lifetimes: \(forgotten)")
        let other = BeaconRef(project: "demo", beaconName: "beacons/4!01")
        try await venue.recordHeard([show: 50_000, other: 60_000])
        try await venue.recordHeard([show: 40_000])
        let heard = try await venue.heard(sinceMs: 55_000)
        XCTAssertEqual(heard, [other: 60_000], "the latest of each, since the time asked")
        let all = try await venue.heard(sinceMs: 0)
        XCTAssertEqual(all[show], 50_000, "an older report does not move a box back")
        await world.hub.backend.close()
    }
}
