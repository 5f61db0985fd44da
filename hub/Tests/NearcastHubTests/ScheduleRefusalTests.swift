import Foundation
@testable import NearcastHub
import XCTest

/// Every refusal: a broken, truncated or inconsistent file is refused as a whole, with the reason
/// typed and the line or the JSON field named.
final class ScheduleRefusalTests: XCTestCase {
    typealias S = ScheduleJSONSamples

    private func refusal(_ data: Data, timeZone: String? = nil, file: StaticString = #filePath,
                         line: UInt = #line) -> ScheduleImportError? {
        do {
            let result = try ScheduleImport.read(data, options: .init(timeZone: timeZone))
            XCTFail("imported \(result.summary)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func assertRefused(_ text: String, _ reason: ScheduleImportError.Reason, _ description: String, timeZone: String? = nil,
                               file: StaticString = #filePath, line: UInt = #line) {
        guard let error = refusal(Data(text.utf8), timeZone: timeZone, file: file, line: line) else { return }
        XCTAssertEqual(error.reason, reason, "\(error)", file: file, line: line)
        XCTAssertEqual(error.description, description, file: file, line: line)
    }

    private let saal = #"schedule.conference.days[0].rooms["Saal 1"]"#

    private func oneRoom(_ events: [[String: Any]], declaredRooms: [String]? = nil, zone: String? = nil) -> String {
        S.schedule(zone: zone, declaredRooms: declaredRooms, rooms: ["Saal 1": events])
    }

    private func talk(_ guid: String, _ date: String, _ duration: String = "00:30", title: String = "Talk",
                      room: String? = nil) -> [String: Any] {
        S.event(guid: guid, title: title, date: date, duration: duration, room: room)
    }

    // MARK: Truncated and malformed

    func testATruncatedJSONExportIsRefusedWhereItStops() throws {
        let whole = try scheduleFixture("pretalx-democon.json")
        let error = try XCTUnwrap(refusal(whole.prefix(4096)))
        XCTAssertEqual(error.reason, .unreadable)
        XCTAssertTrue(error.message.hasPrefix("not JSON that parses (truncated or malformed)"), error.message)
        let lines = whole.prefix(4096).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        switch error.location {
        case .line(let line), .lineColumn(let line, _): XCTAssertEqual(line, lines, "\(error)")
        default: XCTFail("no line named: \(error)")
        }
        let malformed = try XCTUnwrap(refusal(Data("{\"schedule\": {\"version\": 1,,}}".utf8)))
        XCTAssertEqual(malformed.reason, .unreadable)
        XCTAssertEqual(malformed.location, .lineColumn(line: 1, column: 28), "\(malformed)")
    }

    func testATruncatedXMLExportIsRefusedAtItsLine() throws {
        let whole = try scheduleFixture("pretalx-democon.xml")
        let cut = whole.prefix(whole.count / 2)
        let error = try XCTUnwrap(refusal(cut))
        XCTAssertEqual(error.reason, .unreadable)
        let lines = cut.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        guard case .lineColumn(let line, _) = error.location else { return XCTFail("\(error)") }
        XCTAssertEqual(line, lines, "\(error)")
        XCTAssertTrue(error.message.hasSuffix("the file ends early (truncated)"), error.message)
        assertRefused("<schedule><version>1</version><conference></conference><day index='1'></schedule>", .unreadable,
                      "line 1, column 82: not XML that parses (truncated or malformed): an end tag does not match its start tag")
        assertRefused("<schedule>\n<version>&bogus;</version>", .unreadable,
                      "line 2, column 17: not XML that parses (truncated or malformed): an undeclared entity (&name;)")
    }

    func testATruncatedCSVIsRefusedAtTheOpenQuote() {
        assertRefused("day,room,start,duration,title,speakers\n2026-10-02,A,10:00,45,Opening,\"Ada\n", .unreadable,
                      "line 2: a quoted field is never closed (the file is truncated, or a quote is missing)", timeZone: "UTC")
    }

    func testWhatIsNoScheduleAtAll() {
        assertRefused("", .unreadable, "the file: the file is empty")
        assertRefused("[1, 2]", .badValue, "(the top level): is an array, not an object")
        assertRefused(#"{"schedule": {"version": "1"}}"#, .missingField, "schedule.conference: missing")
        assertRefused(#"{"schedule": {"conference": {"days": {}}}}"#, .badValue, "schedule.conference.days: is an object, not an array")
        assertRefused("<?xml version='1.0'?>\n<rss/>", .badValue, "line 2: the root element is <rss>, not <schedule>")
        assertRefused("Hello, world\n", .missingField,
                      "line 1: the header has no \"day\" column (it needs day, room, start, duration, title; speakers, id and guid are optional)")
    }

    // MARK: Two talks at once

    func testTwoTalksAtOnceInOneRoomAreRefusedNamingBoth() {
        let json = oneRoom([talk("a", "2026-10-02T11:00:00+02:00", "00:45", title: "A"), talk("b", "2026-10-02T11:30:00+02:00", title: "B")])
        assertRefused(json, .overlap, saal + #"[1]: two talks at once in room "Saal 1": "B" starts at 11:30, before "A" (\#(saal)[0]) ends at 11:45"#)
        let csv = "day,room,start,duration,title\n2026-10-02,Hall A,10:00,45,Opening\n2026-10-02,Hall B,10:30,30,Elsewhere\n2026-10-02,Hall A,10:30,30,Clash\n"
        assertRefused(csv, .overlap, #"line 4: two talks at once in room "Hall A": "Clash" starts at 10:30, before "Opening" (line 2) ends at 10:45"#,
                      timeZone: "Europe/Rome")
        // Back to back is no overlap (half-open intervals); the same start twice is.
        XCTAssertNoThrow(try ScheduleImport.read(Data(oneRoom([talk("a", "2026-10-02T11:00:00+02:00"), talk("b", "2026-10-02T11:30:00+02:00")]).utf8)))
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00", title: "A"), talk("b", "2026-10-02T09:00:00Z", title: "B")]), .overlap,
                      saal + #"[1]: two talks at once in room "Saal 1": "B" starts at 09:00, before "A" (\#(saal)[0]) ends at 11:30"#)
    }

    /// A talk that overlaps one a long talk already covers, past the talk in between.
    func testAnOverlapBehindAShorterTalkIsFound() {
        let json = oneRoom([talk("long", "2026-10-02T10:00:00+02:00", "03:00", title: "Long"),
                            talk("short", "2026-10-02T10:30:00+02:00", "00:10", title: "Short")])
        assertRefused(json, .overlap, saal + #"[1]: two talks at once in room "Saal 1": "Short" starts at 10:30, before "Long" (\#(saal)[0]) ends at 13:00"#)
    }

    func testAnOverlapInXMLNamesTheEventsLine() throws {
        var xml = String(decoding: try scheduleFixture("pretalx-democon.xml"), as: UTF8.self)
        // The second Gray Room talk of day 1 moved onto the first one's half hour.
        xml = xml.replacingOccurrences(of: "<date>2020-12-14T09:30:00+01:00</date>", with: "<date>2020-12-14T09:15:00+01:00</date>")
        let error = refusal(Data(xml.utf8))
        XCTAssertEqual(error?.reason, .overlap)
        XCTAssertEqual(error?.location, .line(38), "\(String(describing: error))")
        XCTAssertTrue(error?.message.contains("(line 16) ends at 09:30") ?? false, "\(String(describing: error))")
    }

    // MARK: Rooms

    func testUnknownRoomsAreRefused() throws {
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00", title: "A", room: "Saal 2")]), .unknownRoom,
                      saal + #"[0].room: "A" says room "Saal 2" but is listed under room "Saal 1""#)
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00", title: "A")], declaredRooms: ["Saal 2"]), .unknownRoom,
                      saal + #"[0].room: room "Saal 1" of "A" is not one of the file's rooms ("Saal 2")"#)
        let xml = String(decoding: try scheduleFixture("pretalx-democon.xml"), as: UTF8.self)
            .replacingOccurrences(of: "<room>Tan Room</room>", with: "<room>Tan room</room>")
        XCTAssertEqual(refusal(Data(xml.utf8))?.description,
                       #"line 217: day 1, room "Tan Room", event 1: "Managed stable function" says room "Tan room" but is listed under room "Tan Room""#)
    }

    // MARK: Missing and bad fields

    func testMissingFieldsAreRefusedByTheirPath() {
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00"), S.event(guid: nil, title: "T", date: "2026-10-02T12:00:00+02:00", duration: "00:30")]),
                      .missingField, saal + "[1].guid: missing")
        assertRefused(oneRoom([S.event(guid: "a", title: "  ", date: "2026-10-02T12:00:00+02:00", duration: "00:30")]),
                      .missingField, saal + "[0].title: is empty")
        assertRefused(oneRoom([S.event(guid: "a", title: "T", date: nil, duration: "00:30")]), .missingField, saal + "[0].date: missing")
        assertRefused(oneRoom([S.event(guid: "a", title: "T", date: "2026-10-02T12:00:00+02:00", duration: nil)]),
                      .missingField, saal + "[0].duration: the talk has no duration (nor end)")
        assertRefused(oneRoom([S.event(guid: "a", title: "T", date: "2026-10-02T12:00:00+02:00", duration: "00:30", extra: ["guid": 7])]),
                      .badValue, saal + "[0].guid: is a number, not a string")
        assertRefused(S.schedule(rooms: ["Saal 1": []]).replacingOccurrences(of: #""index" : 1"#, with: #""index" : "1""#),
                      .badValue, "schedule.conference.days[0].index: the day's index is not a whole number from 1")
        assertRefused(S.schedule(rooms: [:], moreDays: [[:]]).replacingOccurrences(of: #""index" : 2"#, with: #""index" : 1"#),
                      .badValue, "schedule.conference.days[1].index: day index 1 is given twice")
    }

    func testBadTimesAndDurationsAreRefused() {
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00", "135.0:00")]), .badDuration,
                      saal + #"[0].duration: duration "135.0:00" is not H:MM (or D:HH:MM from pretalx, H:MM:SS from others)"#)
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00+02:00", "00:00", title: "Zero")]), .badDuration,
                      saal + #"[0].duration: "Zero" ends at or before its start"#)
        assertRefused(oneRoom([S.event(guid: "a", title: "Back", date: "2026-10-02T17:00:00+02:00", duration: nil,
                                       extra: ["end": "2026-10-02T16:00:00+02:00"])]), .badDuration,
                      saal + #"[0].end: "Back" ends at or before its start"#)
        assertRefused(oneRoom([talk("a", "2026-10-02T25:61:00+02:00")]), .badTime,
                      saal + #"[0].date: date "2026-10-02T25:61:00+02:00" is not an ISO 8601 date-time (2026-11-28T14:00:00+01:00)"#)
        assertRefused(oneRoom([talk("a", "2026-10-02T11:00:00")]), .timeZone,
                      saal + #"[0].date: date "2026-10-02T11:00:00" has no offset and the file no time_zone_name: give the zone it is in"#)
        XCTAssertNoThrow(try ScheduleImport.read(Data(oneRoom([talk("a", "2026-10-02T11:00:00")]).utf8), options: .init(timeZone: "Europe/Rome")))
        XCTAssertNoThrow(try ScheduleImport.read(Data(oneRoom([talk("a", "2026-10-02T11:00:00")], zone: "Europe/Rome").utf8)))
        assertRefused(S.schedule(rooms: [:]).replacingOccurrences(of: #""date" : "2026-10-02""#, with: #""date" : "2026-02-30""#),
                      .badTime, #"schedule.conference.days[0].date: "2026-02-30" is not a date (YYYY-MM-DD)"#)
    }

    func testOneGuidForTwoTalksIsRefused() {
        assertRefused(S.schedule(rooms: ["Saal 1": [talk("same", "2026-10-02T11:00:00+02:00", title: "One")],
                                         "Saal 2": [talk("same", "2026-10-02T11:00:00+02:00", title: "Two")]]),
                      .duplicateGUID, #"schedule.conference.days[0].rooms["Saal 2"][0]: guid same ("Two") is already the guid of the talk at \#(saal)[0]"#)
        assertRefused("day,room,start,duration,title,id\n2026-10-02,A,10:00,45,One,T1\n2026-10-02,B,10:00,45,Two,T1\n", .duplicateGUID,
                      "line 3: guid \(ScheduleGUID.make(name: "id:T1")) (\"Two\") is already the guid of the talk at line 2", timeZone: "UTC")
    }

    func testCSVRefusalsNameTheLine() {
        let header = "day,room,start,duration,title,speakers\n"
        assertRefused(header + "2026-10-02,A,25:61,30,Bad time,\n", .badTime,
                      "line 2: start \"25:61\" is not a time from 00:00 to 27:59 (HH:MM; 00:00-03:59 and 24:00-27:59 are after midnight)", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,28:00,30,Next day,\n", .badTime,
                      "line 2: start \"28:00\" is not a time from 00:00 to 27:59 (HH:MM; 00:00-03:59 and 24:00-27:59 are after midnight)", timeZone: "UTC")
        assertRefused(header + "02.10.2026,A,10:00,30,Bad day,\n", .badTime, "line 2: day \"02.10.2026\" is not a date (YYYY-MM-DD)", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,0,Zero,\n", .badDuration, "line 2: \"Zero\" ends at or before its start", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,1:00:00,Three parts,\n", .badDuration,
                      "line 2: duration \"1:00:00\" is not minutes (45) or H:MM (1:30)", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,30,,\n", .missingField, "line 2: no title", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,30,Talk,Doe, Jane\n", .unreadable,
                      "line 2: 7 field(s) where the header has 6 (a comma inside a field needs quotes)", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,30,\"Quoted\"x,\n", .unreadable,
                      "line 2: text after a closing quote: a quote inside a quoted field is written twice (\"\")", timeZone: "UTC")
        assertRefused(header + "2026-10-02,A,10:00,30,T,\n", .timeZone, "the file: a CSV has local times: name their zone (--time-zone Europe/Berlin)")
        assertRefused(header + "2026-10-02,A,10:00,30,T,\n", .timeZone, "the file: \"Mars/Olympus\" is not an IANA time zone name (Europe/Berlin)",
                      timeZone: "Mars/Olympus")
    }

    /// A refusal leaves nothing half-read: the caller gets an error and no schedule, whatever came
    /// before the fault.
    func testARefusalIsOfTheWholeFile() throws {
        var text = String(decoding: try scheduleFixture("pretalx-democon.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: #""duration": "00:30""#, with: #""duration": "0:3O""#)
        let error = try XCTUnwrap(refusal(Data(text.utf8)))
        XCTAssertEqual(error.reason, .badDuration)
        XCTAssertEqual(error.location, .field(#"schedule.conference.days[0].rooms["Gray Room"][0].duration"#))
    }
}
