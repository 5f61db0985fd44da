import NearcastCore
import NearcastDrivers
import XCTest

final class EIDResolverTests: XCTestCase {
    private typealias Generator = SplitMix64

    private func randomKey(_ generator: inout Generator) -> [UInt8] {
        (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private func eid(_ key: [UInt8], _ k: Int, _ time: UInt32) throws -> Token {
        try EphemeralIdentifier.compute(identityKey: key, exponent: k, time: time, cipher: OpenSSLAES128())
    }

    func testResolvesTheRightBeaconAmongThousands() throws {
        var generator = Generator(seed: 40)
        let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 600)
        var beacons: [(key: [UInt8], k: Int, time: UInt32)] = []
        for _ in 0..<2_000 {
            let key = randomKey(&generator)
            let k = Int.random(in: 9...12, using: &generator)
            let time = UInt32.random(in: 0...2_000_000_000, using: &generator)
            beacons.append((key, k, time))
            _ = try resolver.register(identityKey: key, exponent: k, beaconTime: time, at: 0)
        }
        // Bounded table: about 2·skew/2^K + 2 per beacon.
        XCTAssertLessThanOrEqual(resolver.tableSize, 2_000 * (2 * 600 / 512 + 2))
        try resolver.advance(to: 100)
        for (index, beacon) in beacons.enumerated() where index % 7 == 0 {
            let heard = try eid(beacon.key, beacon.k, beacon.time + 100)
            let resolution = try XCTUnwrap(resolver.resolve(heard), "beacon \(index)")
            XCTAssertEqual(resolution.beacon, index)
            XCTAssertEqual(resolution.skewSeconds, 0)
        }
    }

    func testSkewedClocksResolveInsideTheWindowAndNotBeyond() throws {
        var generator = Generator(seed: 41)
        let key = randomKey(&generator)
        let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 3_600)
        let id = try resolver.register(identityKey: key, exponent: 10, beaconTime: 1_000_000, at: 50_000)
        try resolver.advance(to: 60_000)                    // expected beacon time 1_010_000
        // The beacon lost power for 40 minutes (its clock is 2,400 s behind): still recognised.
        let behind = try XCTUnwrap(resolver.resolve(try eid(key, 10, 1_010_000 - 2_400)))
        XCTAssertEqual(behind.beacon, id)
        XCTAssertLessThan(behind.skewSeconds, -1_024)
        // Ahead by half an hour: recognised.
        XCTAssertEqual(resolver.resolve(try eid(key, 10, 1_010_000 + 1_800))?.beacon, id)
        // Two hours off: outside the window.
        XCTAssertNil(resolver.resolve(try eid(key, 10, 1_010_000 - 7_200)))
        XCTAssertNil(resolver.resolve(try eid(key, 10, 1_010_000 + 7_200)))
    }

    func testForgedAndForeignEIDsAreNotResolved() throws {
        var generator = Generator(seed: 42)
        let key = randomKey(&generator)
        let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 3_600)
        _ = try resolver.register(identityKey: key, exponent: 9, beaconTime: 4_000, at: 0)
        for _ in 0..<1_000 {
            let forged = Token(kind: .eid, packed: UInt64.random(in: 0...UInt64.max, using: &generator), count: 8)!
            XCTAssertNil(resolver.resolve(forged))
        }
        // Right time, another key; right key, another exponent; a direct token with the EID's bytes.
        XCTAssertNil(resolver.resolve(try eid(randomKey(&generator), 9, 4_000)))
        XCTAssertNil(resolver.resolve(try eid(key, 10, 4_000)))
        let real = try eid(key, 9, 4_000)
        XCTAssertNotNil(resolver.resolve(real))
        XCTAssertNil(resolver.resolve(Token(kind: .direct, packed: real.packed, count: 8)!))
    }

    func testWindowFollowsTimeAcrossEpochsAndTemporaryKeySpans() throws {
        var generator = Generator(seed: 43)
        let key = randomKey(&generator)
        let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 300)
        let start: UInt32 = 65_536 - 2_000                  // crosses a temporary-key span (2^16)
        let id = try resolver.register(identityKey: key, exponent: 8, beaconTime: start, at: 0)
        var sizes: Set<Int> = []
        for elapsed in stride(from: Int64(0), through: 6_000, by: 97) {
            try resolver.advance(to: elapsed)
            sizes.insert(resolver.tableSize)
            let heard = try eid(key, 8, start + UInt32(elapsed))
            XCTAssertEqual(resolver.resolve(heard)?.beacon, id, "after \(elapsed) s")
            // An EID from well before the window has been dropped.
            if elapsed > 1_000 {
                XCTAssertNil(resolver.resolve(try eid(key, 8, start + UInt32(elapsed) - 900)), "stale at \(elapsed)")
            }
        }
        XCTAssertLessThanOrEqual(sizes.max() ?? 0, 2 * 300 / 256 + 2, "the table does not grow")
    }

    func testReanchoringMovesTheWindowAndRemovingForgetsTheBeacon() throws {
        var generator = Generator(seed: 42)
        let key = randomKey(&generator), other = randomKey(&generator)
        let resolver = EIDResolver(cipher: OpenSSLAES128(), skew: 600)
        let id = try resolver.register(identityKey: key, exponent: 8, beaconTime: 10_000, at: 0)
        let otherID = try resolver.register(identityKey: other, exponent: 8, beaconTime: 50_000, at: 0)
        // The box was off for a day: its clock is 86,400 s behind where the window expects it.
        let late = try eid(key, 8, 10_000 + 100)
        try resolver.advance(to: 86_400 + 100)
        XCTAssertNil(resolver.resolve(late))
        try resolver.reanchor(id, beaconTime: 10_100, at: 86_400 + 100)
        XCTAssertEqual(resolver.resolve(late)?.beacon, id)
        XCTAssertEqual(resolver.resolve(late)?.skewSeconds, 0)

        let before = resolver.tableSize
        resolver.remove(id)
        XCTAssertNil(resolver.resolve(late))
        XCTAssertLessThan(resolver.tableSize, before)
        try resolver.advance(to: 86_400 + 200)
        XCTAssertNil(resolver.resolve(late), "a removed beacon's window is not recomputed")
        // The other beacon keeps its handle and still resolves.
        XCTAssertEqual(resolver.resolve(try eid(other, 8, 50_000 + 86_400 + 200))?.beacon, otherID)
        try resolver.reanchor(id, beaconTime: 10_200, at: 86_400 + 200)
        XCTAssertNil(resolver.resolve(late), "reanchoring a removed beacon does nothing")
    }
}
