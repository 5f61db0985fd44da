/// fuzz: bytes (one mode byte: as they are, length byte fixed up, or made an LE advertising report event) into HCIEvent.parse and LEAdvertisingReports.parse from an exact-size buffer (ASan: never read past it); accepted events allocate nothing, a rejected one hands out no report, and every report with its data re-encodes with legacyEvent(for:) to an event that parses back to it
@testable import NearcastCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    var bytes = Array(input.rest())
    // Most random bytes fail the length check: mode 1 fixes the length byte, mode 2 also makes
    // the event an LE Meta advertising report (legacy or extended) with 1-4 reports.
    if mode % 3 >= 1 && bytes.count >= 2 && bytes.count - 2 <= 255 { bytes[1] = UInt8(bytes.count - 2) }
    if mode % 3 == 2 && bytes.count >= 4 {
        bytes[0] = LEAdvertisingReports.leMetaEventCode
        bytes[2] = bytes[2] & 1 == 0 ? LEAdvertisingReports.legacySubevent : LEAdvertisingReports.extendedSubevent
        bytes[3] = 1 + bytes[3] % 4
    }
    warmUp()

    // Exactly the event's bytes on the heap, so that ASan stops any read past them.
    let event = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { event.deallocate() }
    event.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: bytes.count))
    let raw = UnsafeRawBufferPointer(event)

    // The first time a path runs, the runtime may build type metadata (allocating once per
    // process): an allocation counts only when the same parse allocates again.
    var parsed: Result<HCIEvent, HCIEventError>?
    var eventAllocations = 0
    for _ in 0..<2 {
        eventAllocations = AllocationCounter.allocations {
            do throws(HCIEventError) { parsed = .success(try HCIEvent.parse(raw)) } catch { parsed = .failure(error) }
        }
        if eventAllocations == 0 { break }
    }
    if case .success(let value)? = parsed {
        require(eventAllocations == 0, "HCIEvent.parse allocated \(eventAllocations) times for \(bytes)")
        check(value, bytes)
    }

    var reports: [LEAdvertisingReport] = []
    reports.reserveCapacity(32)                             // appending must not allocate
    var count: Result<Int, HCIEventError>?
    var reportAllocations = 0
    for _ in 0..<2 {
        reports.removeAll(keepingCapacity: true)
        reportAllocations = AllocationCounter.allocations {
            do throws(HCIEventError) {
                count = .success(try LEAdvertisingReports.parse(event: raw) { reports.append($0) })
            } catch { count = .failure(error) }
        }
        if reportAllocations == 0 { break }
    }
    switch count! {
    case .failure(let error):
        require(reports.isEmpty, "\(reports.count) reports handed out of an event rejected with \(error)")
    case .success(let n):
        require(reportAllocations == 0, "LEAdvertisingReports.parse allocated \(reportAllocations) times for \(bytes)")
        require(n == reports.count && (1...25).contains(n), "parse says \(n) reports, handed out \(reports.count)")
        require((try? LEAdvertisingReports.parse(event: bytes)) == reports, "the array parse differs")
        let dataBytes = reports.reduce(0) { $0 + ($1.data?.count ?? 0) }
        require(dataBytes <= bytes.count - 4, "\(dataBytes) data bytes from an event of \(bytes.count)")
        for report in reports {
            // The legacy event for a report carries what a legacy report can: its data (when
            // kept), address, type and RSSI; an extended report's event type is cut to a byte.
            guard report.data != nil else { continue }
            let legacy = LEAdvertisingReports.legacyEvent(for: report)
            guard let back = try? LEAdvertisingReports.parse(event: legacy) else {
                fatalError("fuzz: legacyEvent(for: \(report)) = \(legacy) does not parse")
            }
            var expected = report
            expected.isExtended = false
            expected.eventType &= 0xFF
            require(back == [expected], "legacyEvent(for: \(report)) parses back as \(back)")
        }
    }
    return 0
}

/// The event's fields are the bytes where the spec puts them.
func check(_ value: HCIEvent, _ bytes: [UInt8]) {
    require(bytes.count >= 2 && Int(bytes[1]) == bytes.count - 2, "accepted an event whose length byte is wrong")
    switch value {
    case .commandComplete(let result):
        require(bytes[0] == HCIEvent.commandCompleteCode && bytes.count >= 5, "command complete from \(bytes)")
        require(result.credits == bytes[2] && result.opcode == UInt16(bytes[3]) | UInt16(bytes[4]) << 8,
                "command complete fields")
        require(result.status == (bytes.count > 5 ? bytes[5] : 0), "command complete status")
        require(result.returnedCount == min(16, max(0, bytes.count - 6)), "\(result.returnedCount) return bytes of \(bytes)")
        for index in 0..<result.returnedCount { require(result[returned: index] == bytes[6 + index], "return byte \(index)") }
    case .commandStatus(let result):
        require(bytes[0] == HCIEvent.commandStatusCode && bytes.count == 6, "command status from \(bytes)")
        require(result.status == bytes[2] && result.credits == bytes[3]
                && result.opcode == UInt16(bytes[4]) | UInt16(bytes[5]) << 8 && result.returnedCount == 0,
                "command status fields")
    case .leMeta(let subevent):
        require(bytes[0] == LEAdvertisingReports.leMetaEventCode && bytes.count >= 3 && subevent == bytes[2], "LE meta")
    case .hardwareError(let code):
        require(bytes[0] == HCIEvent.hardwareErrorCode && bytes.count >= 3 && code == bytes[2], "hardware error")
    case .other(let code):
        require(code == bytes[0] && ![0x0E, 0x0F, 0x10, 0x3E].contains(code), "other event \(code)")
    }
}

nonisolated(unsafe) var warmedUp = false

/// The runtime builds type metadata on first use: parse each kind of event once first.
func warmUp() {
    guard !warmedUp else { return }
    warmedUp = true
    let events: [[UInt8]] = [
        [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], [0x0E, 0x06, 0x01, 0x03, 0x10, 0x00, 0x01, 0x02], [0x0F, 0x04, 0x00, 0x01, 0x03, 0x0C], [0x10, 0x01, 0x01], [0x05, 0x00],
        [0x3E, 0x0D, 0x02, 0x01, 0x03, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x06, 0x01, 0x00, 0xC4],
        [0x3E, 0x1B, 0x0D, 0x01, 0x10, 0x00, 0x01, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01, 0x00, 0xFF, 0x7F, 0xBA,
         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00],
    ]
    for event in events {
        event.withUnsafeBytes { raw in
            _ = try? HCIEvent.parse(raw)
            _ = try? LEAdvertisingReports.parse(event: raw) { _ in }
        }
    }
}
