import Foundation
@testable import NearcastHub
import XCTest

/// A show's JSON (`GET /v1/shows/BEACON`, the `show` events): one flat object, the presenter's
/// fields only for the secret key. The literals below are what the API sent before `ShowJSON`
/// was split into its two parts; clients read these exact keys (docs/present-api.md, openapi.yaml).
final class ShowJSONTests: XCTestCase {
    static let followerText = #"""
        {"beaconName":"beacons/4!0011223344556677","deck":"00112233aabbccdd","height":900,"page":3,\#
        "pages":12,"reactions":{"choices":[{"kind":"emoji","value":"👏"},\#
        {"kind":"image","url":"/v1/reactions/images/cat","value":"cat"}],"enabled":true},\#
        "shown":[1,2,3],"shownUpTo":3,"startedMs":1412262083045,"startedTime":"2014-10-02T15:01:23.045Z",\#
        "title":"Talk","width":1600}
        """#
    static let presenterText = #"""
        {"beaconName":"beacons/4!0011223344556677",\#
        "box":{"lastResolvedTime":"2014-10-02T15:05:00.000Z","lastSeenTime":"2014-10-02T15:04:00.000Z","name":"Room A"},\#
        "code":"ABC123","codeExpiresMs":1412262120000,"codeExpiresTime":"2014-10-02T15:02:00.000Z",\#
        "codeJoining":true,"codeMaxShare":50,"codePasses":4,"counts":{"cat":2,"👏":5},\#
        "deck":"00112233aabbccdd","followers":7,"height":900,"joinPath":"/j/ABC123","page":3,\#
        "pages":12,"reach":{"message":"7 phones follow.","state":"ok"},"reactions":{"choices":[{"kind":"emoji","value":"👏"},\#
        {"kind":"image","url":"/v1/reactions/images/cat","value":"cat"}],"enabled":true},\#
        "rotationPeriodSeconds":128,\#
        "shown":[1,2,3],"shownUpTo":3,"startedMs":1412262083045,"startedTime":"2014-10-02T15:01:23.045Z",\#
        "title":"Talk","width":1600}
        """#

    static func follower() -> ShowJSON {
        ShowJSON(audience: .init(
            beaconName: "beacons/4!0011223344556677", deck: "00112233aabbccdd", title: "Talk", pages: 12,
            width: 1600, height: 900, page: 3, shownUpTo: 3, shown: [1, 2, 3],
            startedTime: "2014-10-02T15:01:23.045Z", startedMs: 1_412_262_083_045,
            reactions: ReactionChoicesJSON(enabled: true, choices: [
                .init(value: "👏", kind: "emoji"), .init(value: "cat", kind: "image", url: "/v1/reactions/images/cat"),
            ])))
    }

    /// Every presenter field set, as for a live EID beacon with its code on.
    static func presenter() -> ShowJSON {
        var json = follower()
        json.presenter = ShowJSON.Presenter(
            followers: 7, code: "ABC123", codeExpiresTime: "2014-10-02T15:02:00.000Z", codeExpiresMs: 1_412_262_120_000,
            joinPath: "/j/ABC123", counts: ["👏": 5, "cat": 2], rotationPeriodSeconds: 128,
            codeJoining: true, codeMaxShare: 50, codePasses: 4,
            box: ShowBoxJSON(name: "Room A", lastSeenTime: "2014-10-02T15:04:00.000Z", lastResolvedTime: "2014-10-02T15:05:00.000Z"),
            reach: ShowReachJSON(state: "ok", message: "7 phones follow."))
        return json
    }

    private func text(_ json: ShowJSON) throws -> String {
        String(decoding: try JSONText.encode(json), as: UTF8.self)
    }

    func testAFollowersShowIsTheSameJSONAsBeforeWithNoPresenterKey() throws {
        XCTAssertEqual(try text(Self.follower()), Self.followerText)
        let keys = try XCTUnwrap(JSONSerialization.jsonObject(with: try JSONText.encode(Self.follower())) as? [String: Any]).keys
        let presenterKeys: Set = ["followers", "code", "codeExpiresTime", "codeExpiresMs", "joinPath", "counts", "rotationPeriodSeconds",
                                  "codeJoining", "codeMaxShare", "codePasses", "box", "reach"]
        XCTAssertEqual(Set(keys).intersection(presenterKeys), [], "a follower is sent none of the presenter's fields")
        XCTAssertEqual(keys.count, 12)
    }

    func testAPresentersShowIsTheSameFlatJSONAsBefore() throws {
        XCTAssertEqual(try text(Self.presenter()), Self.presenterText)
    }

    /// Read back (as a client in Swift would), each text gives the show it came from: a
    /// follower's with no presenter part, a presenter's with all of it.
    func testTheFlatJSONReadsBackIntoItsParts() throws {
        for show in [Self.follower(), Self.presenter()] {
            XCTAssertEqual(try JSONDecoder().decode(ShowJSON.self, from: try JSONText.encode(show)), show)
        }
        XCTAssertNil(try JSONDecoder().decode(ShowJSON.self, from: Data(Self.followerText.utf8)).presenter)
        XCTAssertEqual(try JSONDecoder().decode(ShowJSON.self, from: Data(Self.presenterText.utf8)).presenter?.joinPath, "/j/ABC123")
    }
}
