import NearcastCore
import XCTest
@testable import NearcastApp
@testable import NearcastDrivers

/// Every public Eddystone-EID test vector in ../shared/vectors, through libcrypto's AES-128.
final class EIDVectorTests: XCTestCase {
    func testEveryVector() throws {
        var path = #filePath
        for _ in 0..<4 { path = FileSystem.directoryName(of: path) }
        let file = path + "/shared/vectors/eddystone-eid.json"
        let root = try JSON5Parser.parse(try FileSystem.readText(file))
        guard case .object(let members) = root.value,
              case .array(let vectors)? = members.first(where: { $0.key == "vectors" })?.value.value else {
            return XCTFail("\(file): no vectors array")
        }
        XCTAssertGreaterThanOrEqual(vectors.count, 7)
        for vector in vectors {
            guard case .object(let fields) = vector.value else { return XCTFail("vector is not an object") }
            func field(_ name: String) -> JSON5Value? { fields.first { $0.key == name }?.value.value }
            guard case .string(let key)? = field("identity_key"), case .number(let k)? = field("rotation_exponent"),
                  case .number(let time)? = field("beacon_time_seconds"), case .string(let expected)? = field("eid") else {
                return XCTFail("vector at line \(vector.line) lacks a field")
            }
            let eid = try EphemeralIdentifier.compute(identityKey: try Hex.parse(key), exponent: Int(k),
                                                      time: UInt32(time), cipher: OpenSSLAES128())
            XCTAssertEqual(eid.hex, expected, "key \(key), K \(Int(k)), time \(UInt32(time))")
        }
    }

    func testAESMatchesFIPS197() throws {
        // FIPS-197 appendix C.1: AES-128 of 00112233...ff under 000102...0f.
        let key = (0..<16).map { UInt8($0) }
        let block = (0..<16).map { UInt8($0 * 0x11) }
        XCTAssertEqual(Hex.format(try OpenSSLAES128().encrypt(block: block, key: key)), "69c4e0d86a7b0430d8cdb78070b4c55a")
    }
}
