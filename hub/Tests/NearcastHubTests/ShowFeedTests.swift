import Foundation
@testable import NearcastHub
import NIOCore
import XCTest

/// `ShowFeed`'s fan-out when a stream's first event (its own read of the show) and the sends
/// (a change read once for every stream) cross: every stream ends on the show as it is now.
final class ShowFeedTests: XCTestCase {
    private let key = BeaconRef(project: "demo", beaconName: "beacons/4!00112233445566778899aabbccddeeff")

    private static func page(_ page: Int) -> ByteBuffer { ShowFeed.event("show", json: Data("{\"page\":\(page)}".utf8)) }

    /// The pages a stream got, in order: it is ended, then read to its end (what it buffered).
    private static func pages(_ subscription: ShowFeed.Subscription) async -> [Int] {
        subscription.continuation.finish()
        var pages: [Int] = []
        for await event in subscription.events {
            let text = String(buffer: event)
            guard let start = text.range(of: "\"page\":"), let end = text[start.upperBound...].firstIndex(of: "}") else {
                XCTFail("not a show event: \(text)")
                continue
            }
            pages.append(Int(text[start.upperBound..<end]) ?? -1)
        }
        return pages
    }

    /// What the phone that renewed its pass after K met: its old stream revoked (the show's only
    /// one), the show (on page 5) sent to no stream; page 2 while it reopened, its new stream's
    /// first event; then page 5 again, which must reach it though the last send was page 5 too.
    func testAStreamOpenedWhileTheShowHadNoneGetsTheNextTurnBackToTheLastPageSent() async {
        let feed = ShowFeed()
        let revoked = feed.subscribe(key, role: .follower)
        feed.sendFirst(revoked, Self.page(5))
        revoked.continuation.finish()      // `event: revoked` ends it...
        feed.send(key, follower: Self.page(5), presenter: Self.page(5))   // ...and the same read sends the show on
        let reopened = feed.subscribe(key, role: .follower)
        feed.sendFirst(reopened, Self.page(2))   // the presenter moved to 2 meanwhile: no stream, no send
        feed.send(key, follower: Self.page(5), presenter: Self.page(5))
        let got = await Self.pages(reopened)
        XCTAssertEqual(got, [2, 5])
    }

    /// Another follower stays on page 5 while a new stream's read finds page 2 (a turn to 2 and
    /// back, read once after both): the send of 5 is the same again for the first, not for the new one.
    func testAStreamWhoseFirstEventIsNotTheLastSentGetsTheNextSend() async {
        let feed = ShowFeed()
        let staying = feed.subscribe(key, role: .follower)
        feed.sendFirst(staying, Self.page(5))
        feed.send(key, follower: Self.page(5), presenter: Self.page(5))
        let joining = feed.subscribe(key, role: .follower)
        feed.sendFirst(joining, Self.page(2))
        feed.send(key, follower: Self.page(5), presenter: Self.page(5))
        let joined = await Self.pages(joining)
        XCTAssertEqual(joined, [2, 5])
        let stayed = await Self.pages(staying)
        XCTAssertEqual(stayed.last, 5)
    }

    /// A send that reached a stream before its own first event did carries a read at least as
    /// new: the first event, given after it, would put the stream back on an older page.
    func testAFirstEventAfterASendIsNotGiven() async {
        for role in [ShowFeed.Role.follower, .presenter] {
            let feed = ShowFeed()
            let opening = feed.subscribe(key, role: role)
            feed.send(key, follower: Self.page(3), presenter: Self.page(3))
            feed.sendFirst(opening, Self.page(2))
            let got = await Self.pages(opening)
            XCTAssertEqual(got, [3], "\(role)")
        }
    }

    /// The same show again is not sent to followers who have it (the fan-out's saving), but a
    /// stream's first event is always given when no send came first.
    func testTheSameShowAgainIsSkippedOnlyForFollowersWhoHaveIt() async {
        let feed = ShowFeed()
        let first = feed.subscribe(key, role: .follower)
        feed.sendFirst(first, Self.page(4))
        feed.send(key, follower: Self.page(4), presenter: Self.page(4))
        let second = feed.subscribe(key, role: .follower)
        feed.sendFirst(second, Self.page(4))
        feed.send(key, follower: Self.page(4), presenter: Self.page(4))
        let firstGot = await Self.pages(first)
        let secondGot = await Self.pages(second)
        XCTAssertEqual(firstGot.last, 4)
        XCTAssertEqual(secondGot, [4], "the show the second stream opened on is not sent to it again")
    }
}
