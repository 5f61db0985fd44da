/// One advertisement a scanner heard, from an HCI LE Advertising Report (Core spec Vol 4,
/// Part E, 7.7.65.2) or LE Extended Advertising Report (7.7.65.13) event.
public struct LEAdvertisingReport: Sendable, Equatable {
    /// The PDU type: 0 ADV_IND ... 4 SCAN_RSP for legacy reports; the extended report's
    /// event-type bit field (connectable 0x01, scannable 0x02, directed 0x04, scan response
    /// 0x08, legacy PDU 0x10, data status in bits 5-6) for extended ones.
    public var eventType: UInt16
    /// True when it came in an extended report.
    public var isExtended: Bool
    /// 0 public, 1 random, 2/3 resolved identities, 0xFF anonymous.
    public var addressType: UInt8
    public var address: BLEAddress
    /// Signal strength in dBm; 127 when the controller could not measure it.
    public var rssi: Int8
    /// The advertising data, or nil when it is longer than a legacy advertisement's 31 bytes or
    /// the controller delivered only part of it (Nearcast's frames always fit in 31 bytes).
    public var data: AdvertisingData?

    public init(eventType: UInt16, isExtended: Bool, addressType: UInt8, address: BLEAddress, rssi: Int8,
                data: AdvertisingData?) {
        self.eventType = eventType
        self.isExtended = isExtended
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.data = data
    }
}

/// Why an HCI event could not be read as advertising reports.
public enum HCIEventError: Error, Equatable, CustomStringConvertible {
    /// The bytes end before the structure they announce.
    case truncated(at: Int, expected: String)
    /// The event is something other than an LE advertising report.
    case notAnAdvertisingReport(eventCode: UInt8, subevent: UInt8?)
    /// The parameter length byte disagrees with the bytes present.
    case lengthMismatch(declared: Int, present: Int)
    /// The report count is zero or more than the event can hold.
    case badReportCount(Int)

    public var description: String {
        switch self {
        case .truncated(let offset, let expected):
            return "HCI event truncated at byte \(offset): expected \(expected)"
        case .notAnAdvertisingReport(let code, let subevent):
            let sub = subevent.map { ", subevent 0x\(Hex.format(UInt64($0), byteCount: 1))" } ?? ""
            return "HCI event 0x\(Hex.format(UInt64(code), byteCount: 1))\(sub) is not an LE advertising report"
        case .lengthMismatch(let declared, let present):
            return "HCI event declares \(declared) parameter bytes but carries \(present)"
        case .badReportCount(let count):
            return "HCI advertising report event with \(count) reports (1 to 25 allowed)"
        }
    }
}

/// Reads LE advertising report events as a BlueZ raw HCI socket or an H4 UART delivers them
/// (after the H4 packet-type byte): event code, parameter length, parameters.
///
/// The whole event is checked before any report is handed out, so a malformed event yields an
/// error and no half-read reports. Nothing is allocated.
public enum LEAdvertisingReports {
    /// HCI LE Meta event code.
    public static let leMetaEventCode: UInt8 = 0x3E
    /// LE Advertising Report subevent.
    public static let legacySubevent: UInt8 = 0x02
    /// LE Extended Advertising Report subevent.
    public static let extendedSubevent: UInt8 = 0x0D

    /// Calls `body` with each report in `event` and returns how many there were.
    @discardableResult
    public static func parse(event: UnsafeRawBufferPointer, _ body: (LEAdvertisingReport) -> Void) throws(HCIEventError) -> Int {
        let (subevent, count) = try header(event)
        try walk(event, subevent: subevent, count: count, checkOnly: true, body)
        try walk(event, subevent: subevent, count: count, checkOnly: false, body)
        return count
    }

    /// Encodes one report as an LE Advertising Report event (the layout ``parse(event:_:)``
    /// reads): what a simulated scanner hands the stack. Allocates; not for hot paths.
    public static func legacyEvent(for report: LEAdvertisingReport) -> [UInt8] {
        let data = report.data?.bytes ?? []
        var event: [UInt8] = [leMetaEventCode, UInt8(12 + data.count), legacySubevent, 1,
                              UInt8(truncatingIfNeeded: report.eventType), report.addressType]
        for index in 0..<6 { event.append(report.address[hciByte: index]) }
        event.append(UInt8(data.count))
        event += data
        event.append(UInt8(bitPattern: report.rssi))
        return event
    }

    /// Convenience for tests and tools: the reports in `event` as an array.
    public static func parse(event: [UInt8]) throws(HCIEventError) -> [LEAdvertisingReport] {
        var reports: [LEAdvertisingReport] = []
        let result: Result<Int, HCIEventError> = event.withUnsafeBytes { raw in
            do throws(HCIEventError) { return .success(try parse(event: raw) { reports.append($0) }) } catch {
                return .failure(error)
            }
        }
        _ = try result.get()
        return reports
    }

    private static func header(_ event: UnsafeRawBufferPointer) throws(HCIEventError) -> (UInt8, Int) {
        guard event.count >= 2 else { throw .truncated(at: event.count, expected: "event code and parameter length") }
        let code = event[0]
        guard code == leMetaEventCode else { throw .notAnAdvertisingReport(eventCode: code, subevent: nil) }
        let declared = Int(event[1])
        guard declared == event.count - 2 else { throw .lengthMismatch(declared: declared, present: event.count - 2) }
        guard event.count >= 4 else { throw .truncated(at: event.count, expected: "subevent code and report count") }
        let subevent = event[2]
        guard subevent == legacySubevent || subevent == extendedSubevent else {
            throw .notAnAdvertisingReport(eventCode: code, subevent: subevent)
        }
        let count = Int(event[3])
        guard (1...25).contains(count) else { throw .badReportCount(count) }
        return (subevent, count)
    }

    /// Walks the reports: checks them all when `checkOnly`, hands them to `deliver` otherwise.
    private static func walk(_ event: UnsafeRawBufferPointer, subevent: UInt8, count: Int, checkOnly: Bool,
                             _ deliver: (LEAdvertisingReport) -> Void) throws(HCIEventError) {
        var offset = 4
        let extended = subevent == extendedSubevent
        // Fixed fields before the data length: legacy 1+1+6 = 8; extended 2+1+6+1+1+1+1+1+2+1+6 = 23.
        let fixed = extended ? 23 : 8
        for _ in 0..<count {
            guard offset + fixed + 1 <= event.count else {
                throw .truncated(at: offset, expected: "\(fixed + 1) bytes of report header")
            }
            let eventType = extended ? UInt16(event[offset]) | UInt16(event[offset + 1]) << 8 : UInt16(event[offset])
            let typeOffset = offset + (extended ? 2 : 1)
            let addressType = event[typeOffset]
            var address: UInt64 = 0
            for byte in 0..<6 { address |= UInt64(event[typeOffset + 1 + byte]) << UInt64(8 * byte) }
            let length = Int(event[offset + fixed])
            let dataStart = offset + fixed + 1
            let rssiOffset = extended ? offset + 13 : dataStart + length
            guard dataStart + length + (extended ? 0 : 1) <= event.count else {
                throw .truncated(at: dataStart, expected: "\(length) data bytes\(extended ? "" : " and RSSI")")
            }
            if !checkOnly {
                // Extended reports: data status in bits 5-6 (0 = complete).
                let complete = !extended || (eventType >> 5) & 0x3 == 0
                var data: AdvertisingData?
                if complete && length <= AdvertisingData.capacity {
                    var bytes = AdvertisingData()
                    for index in 0..<length { bytes.append(event[dataStart + index]) }
                    data = bytes
                }
                deliver(LEAdvertisingReport(
                    eventType: eventType, isExtended: extended, addressType: addressType,
                    address: BLEAddress(value: address)!, rssi: Int8(bitPattern: event[rssiOffset]), data: data))
            }
            offset = dataStart + length + (extended ? 0 : 1)
        }
        guard offset == event.count else { throw .lengthMismatch(declared: offset - 2, present: event.count - 2) }
    }
}
