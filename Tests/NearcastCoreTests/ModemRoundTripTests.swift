import XCTest
@testable import NearcastCore

final class ModemRoundTripTests: XCTestCase {
    func testCleanBurstDecodes() throws {
        for rate in [48_000, 44_100] {
            let token = try Token(kind: .direct, hex: "0102030405060708")
            let audio = try renderBurst(token, sampleRate: rate, leadingSilence: 12_345)
            let found = try decodeAll(audio, sampleRate: rate)
            XCTAssertEqual(found.map(\.token), [token], "rate \(rate)")
        }
    }
}

func renderBurst(_ token: Token, sampleRate: Int, leadingSilence: Int, trailingSilence: Int = 1000) throws -> [Float] {
    let encoder = try BurstEncoder(sampleRate: sampleRate)
    encoder.start(token)
    var audio = [Float](repeating: 0, count: leadingSilence + encoder.rate.burstSamples + trailingSilence)
    audio.withUnsafeMutableBufferPointer { buffer in
        let tail = UnsafeMutableBufferPointer(rebasing: buffer[leadingSilence...])
        _ = encoder.render(into: tail)
    }
    return audio
}

func decodeAll(_ audio: [Float], sampleRate: Int) throws -> [DecodedBurst] {
    let decoder = try BurstDecoder(sampleRate: sampleRate)
    var found: [DecodedBurst] = []
    audio.withUnsafeBufferPointer { decoder.push($0) { found.append($0) } }
    decoder.finish { found.append($0) }
    return found
}
