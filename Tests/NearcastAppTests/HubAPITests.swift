import NearcastCore
import XCTest
@testable import NearcastApp

/// The Proximity Beacon API's shapes as the box writes and reads them (``HubAPI``): what
/// ``HubSync`` decides on is only what these read.
final class HubAPITests: XCTestCase {
    private let key = Base64.encode([UInt8](repeating: 7, count: 32))

    func testTheParametersAreReadAndAnythingElseIsNot() {
        let parameters = HubAPI.parameters(#"{"serviceEcdhPublicKey":"\#(key)","minRotationPeriodExponent":0,"maxRotationPeriodExponent":15}"#)
        XCTAssertEqual(parameters, HubAPI.Parameters(serviceKey: [UInt8](repeating: 7, count: 32), exponents: 0...15))
        for body in [#"{"serviceEcdhPublicKey":"AAAA","minRotationPeriodExponent":0,"maxRotationPeriodExponent":15}"#,   // not 32 bytes
                     #"{"serviceEcdhPublicKey":"\#(key)","minRotationPeriodExponent":9,"maxRotationPeriodExponent":4}"#,  // reversed
                     #"{"serviceEcdhPublicKey":"\#(key)"}"#, "<html>proxy error</html>", ""] {
            XCTAssertNil(HubAPI.parameters(body), body)
        }
    }

    func testAnAnswerGivesItsNameListAndErrorAndAListCutShortIsNoList() {
        let listed = HubAPI.answer(#"{"attachments":[{"attachmentName":"beacons/4!00/attachments/1","namespacedType":"demo/slide","data":"U2xpZGUgMQ=="}]}"#)
        XCTAssertEqual(listed.attachments, [HubAPI.Attachment(namespacedType: "demo/slide", attachmentName: "beacons/4!00/attachments/1",
                                                              data: "U2xpZGUgMQ==")])
        XCTAssertNil(HubAPI.answer(#"{"attachments":[{"attachmentName":"beacons/4!00/att"#).attachments, "cut short: not an empty list")
        XCTAssertEqual(HubAPI.answer("{}").attachments, nil)
        XCTAssertEqual(HubAPI.answer(#"{"beaconName":"beacons/4!0011"}"#).beaconName, "beacons/4!0011")
        let refused = HubAPI.answer(#"{"error":{"code":400,"message":"bad key","status":"INVALID_ARGUMENT","field":"ephemeralIdRegistration.serviceEcdhPublicKey"}}"#)
        XCTAssertEqual(refused.errorMessage, "bad key")
        XCTAssertEqual(refused.errorField, "ephemeralIdRegistration.serviceEcdhPublicKey")
    }

    func testTheRequestBodiesAreTheAPIsShapes() throws {
        let body = HubAPI.registration(eid: [1, 2, 3, 4, 5, 6, 7, 8], initialTime: 600, beaconPublicKey: [9], serviceKey: [10],
                                       exponent: 10, description: "nearcast sim")
        let json = try XCTUnwrap(JSON5Node.parse(json: body))
        XCTAssertEqual(json["advertisedId"]?["type"]?.string, "EDDYSTONE_EID")
        XCTAssertEqual(json["advertisedId"]?["id"]?.string, Base64.encode([1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertEqual(json["ephemeralIdRegistration"]?["rotationPeriodExponent"]?.integer, 10)
        XCTAssertEqual(json["ephemeralIdRegistration"]?["initialClockValue"]?.integer, 600)
        XCTAssertEqual(json["ephemeralIdRegistration"]?["initialEid"]?.string, Base64.encode([1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertEqual(json["description"]?.string, "nearcast sim")
        let beat = try XCTUnwrap(JSON5Node.parse(json: HubAPI.heartbeat(clockValue: 42, HubHeartbeat(status: "ok", problems: ["audio-missing"], version: "1"))))
        XCTAssertEqual(beat["clockValue"]?.integer, 42)
        XCTAssertEqual(beat["problems"]?.array?.compactMap { $0.string }, ["audio-missing"])
        let attachment = try XCTUnwrap(JSON5Node.parse(json: HubAPI.attachment(namespacedType: "demo/slide", bytes: Array("Slide 1".utf8))))
        XCTAssertEqual(attachment["data"]?.string, "U2xpZGUgMQ==")
    }
}
