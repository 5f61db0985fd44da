import XCTest
import NearcastCore

final class HCICodecTests: XCTestCase {
    private func hex(_ command: HCICommand) -> String {
        command.withH4Packet { Hex.format(Array($0)) }
    }

    /// Frames from the spec's layouts (docs/driver-facts.md gives the worked examples).
    func testCommandsHaveTheSpecsByteLayouts() throws {
        XCTAssertEqual(hex(.reset()), "01030c00")
        XCTAssertEqual(hex(.leSetExtendedAdvertisingParameters(handle: 0, type: .nonConnectable,
                                                               interval: HCICommand.advertisingUnits(milliseconds: 100), txPower: 0x7F)),
                       "0136201900" + "1000" + "a00000" + "a00000" + "07" + "01" + "00" + "000000000000" + "00" + "7f" + "01" + "00" + "01" + "00" + "00")
        XCTAssertEqual(hex(.leSetExtendedAdvertisingEnable(true, handle: 0)), "01392006010100000000")
        let address = try XCTUnwrap(BLEAddress(value: 0x1234_5678_9ABC))
        XCTAssertEqual(hex(.leSetRandomAddress(address)), "01052006" + "bc9a78563412")
        XCTAssertEqual(hex(.leSetAdvertisingSetRandomAddress(handle: 2, address)), "01352007" + "02bc9a78563412")
        // Legacy parameters: 15 bytes; 100 ms = 0x00A0; ADV_NONCONN_IND; random; all channels.
        XCTAssertEqual(hex(.leSetAdvertisingParameters(interval: 0xA0, type: .nonConnectable)),
                       "0106200f" + "a000" + "a000" + "03" + "01" + "00" + "000000000000" + "07" + "00")
        // Advertising data is always 31 bytes after the length, zero-padded.
        let data = try XCTUnwrap(AdvertisingData(bytes: [0x02, 0x01, 0x06]))
        XCTAssertEqual(hex(.leSetAdvertisingData(data)), "01082020" + "03020106" + String(repeating: "00", count: 28))
        XCTAssertEqual(hex(.leSetAdvertisingData(AdvertisingData(), scanResponse: true)), "01092020" + String(repeating: "00", count: 32))
        XCTAssertEqual(hex(.leSetExtendedAdvertisingData(handle: 1, data)), "01372007" + "01030103020106")
        XCTAssertEqual(hex(.leSetAdvertisingEnable(false)), "010a200100")
        XCTAssertEqual(hex(.leSetScanParameters(active: false, interval: 0x60, window: 0x30)), "010b2007" + "00600030000100")
        XCTAssertEqual(hex(.leSetScanEnable(true, filterDuplicates: false)), "010c20020100")
        XCTAssertEqual(hex(.leSetExtendedScanParameters(active: false, interval: 0x60, window: 0x30)), "01412008" + "010001" + "0060003000")
        XCTAssertEqual(hex(.leSetExtendedScanEnable(true, filterDuplicates: true)), "0142200601010000" + "0000")
        XCTAssertEqual(hex(.setEventMask(HCICommand.eventMaskWithLEMeta)), "01010c08" + "ffffffffff1f0020")
        XCTAssertEqual(hex(.leSetEventMask(HCICommand.leEventMask)), "01012008" + "1f10020000000000")
        XCTAssertEqual(hex(.leRemoveAdvertisingSet(handle: 3)), "013c200103")
        XCTAssertEqual(HCICommand.advertisingUnits(milliseconds: 1_000), 1_600)
        XCTAssertEqual(HCICommand.reset().name, "Reset (0x0c03)")
        // Out-of-range intervals are clamped to what the command allows.
        XCTAssertEqual(hex(.leSetAdvertisingParameters(interval: 1, type: .scannable)).prefix(18), "0106200f2000200002")
    }

    func testEventsParse() throws {
        func parse(_ text: String) throws -> HCIEvent {
            let bytes = try Hex.parse(text)
            return try bytes.withBytes { raw throws(HCIEventError) in try HCIEvent.parse(raw) }
        }
        guard case .commandComplete(let reset) = try parse("0e0401030c00") else { return XCTFail("command complete") }
        XCTAssertEqual(reset.opcode, HCIOpcode.reset)
        XCTAssertTrue(reset.isSuccess)
        XCTAssertEqual(reset.credits, 1)
        XCTAssertEqual(reset.returnedCount, 0)
        // LE Read Local Supported Features: status then 8 feature bytes; bit 12 is extended advertising.
        guard case .commandComplete(let features) = try parse("0e0c01032000ff1f000000000000") else { return XCTFail() }
        XCTAssertEqual(features.returnedCount, 8)
        XCTAssertEqual(features[returned: 1] & 0x10, 0x10)
        guard case .commandStatus(let status) = try parse("0f040c013620") else { return XCTFail("command status") }
        XCTAssertEqual(status.opcode, HCIOpcode.leSetExtendedAdvertisingParameters)
        XCTAssertEqual(HCIStatus.describe(status.status), "0x0c Command Disallowed")
        XCTAssertEqual(try parse("3e061200010000" + "0a"), .leMeta(subevent: 0x12))
        XCTAssertEqual(try parse("100101"), .hardwareError(code: 1))
        XCTAssertEqual(try parse("0500"), .other(code: 5))
        XCTAssertThrowsError(try parse("0e05010300")) { XCTAssertEqual($0 as? HCIEventError, .lengthMismatch(declared: 5, present: 3)) }
        XCTAssertThrowsError(try parse("0e020103"))
        XCTAssertThrowsError(try parse("0f03000136"))
        XCTAssertThrowsError(try parse("3e00"))
        XCTAssertThrowsError(try parse("0e"))
    }
}

final class H4DeframerTests: XCTestCase {
    func testPacketsAreCutFromAnyPiecesAndNoiseIsDroppedAndCounted() throws {
        let stream = try Hex.parse("ff00" + "040e0401030c00" + "02010003000a0b0c" + "043e0312abcd" + "0405")
            + Hex.parse("00") + Hex.parse("040e0401" + "032000")
        for pieceSize in [1, 2, 3, 7, 100] {
            var deframer = H4Deframer()
            var packets: [String] = []
            var offset = 0
            while offset < stream.count {
                let piece = Array(stream[offset..<min(offset + pieceSize, stream.count)])
                piece.withUnsafeBytes { deframer.feed($0) { type, body in packets.append("\(type):\(Hex.format(Array(body)))") } }
                offset += pieceSize
            }
            XCTAssertEqual(packets, ["4:0e0401030c00", "2:010003000a0b0c", "4:3e0312abcd", "4:0500", "4:0e0401032000"], "pieces of \(pieceSize)")
            XCTAssertEqual(deframer.discardedBytes, 2, "ff and 00 before the first packet")
        }
    }

    func testOversizedDataPacketsAreSkippedWhole() throws {
        var deframer = H4Deframer()
        var events = 0
        let big = [UInt8]([0x02, 0x01, 0x00, 0x00, 0x04]) + [UInt8](repeating: 0x04, count: 1024)   // ACL of 1024 bytes of 0x04
        let event = try Hex.parse("040e0401030c00")
        (big + event).withUnsafeBytes { deframer.feed($0) { type, _ in if type == 4 { events += 1 } } }
        XCTAssertEqual(events, 1, "the ACL payload is not read as events")
        XCTAssertEqual(deframer.skippedPackets, 1)
    }
}
