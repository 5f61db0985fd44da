import Foundation
@testable import NearcastHub
import XCTest

/// A fixture of hub/Tests/ScheduleFixtures (real exports from voc/schedule, EUPL-1.2: see its README).
func scheduleFixture(_ name: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../ScheduleFixtures/\(name)").standardized)
}

/// Reads `text` as a schedule, failing the test with the refusal if it is refused.
func importSchedule(_ text: String, timeZone: String? = nil, file: StaticString = #filePath,
                    line: UInt = #line) throws -> ScheduleImport.Result {
    do {
        return try ScheduleImport.read(Data(text.utf8), options: .init(timeZone: timeZone))
    } catch {
        XCTFail("refused: \(error)", file: file, line: line)
        throw error
    }
}

/// Real pretalx and frab exports, the same conference as XML, and the CSV: what they import as.
final class ScheduleImportTests: XCTestCase {
    func testPretalxDemoConJSONImportsWithItsProblemsNamed() throws {
        let result = try ScheduleImport.read(scheduleFixture("pretalx-democon.json"))
        XCTAssertEqual(result.format, .json)
        XCTAssertEqual(result.summary.rooms, 2)
        XCTAssertEqual(result.summary.talks, 36)
        XCTAssertEqual(result.summary.days, 3)
        let schedule = result.schedule
        XCTAssertEqual(schedule.rooms.map(\.name), ["Gray Room", "Tan Room"])
        XCTAssertEqual(schedule.version, "v1.1")
        let first = try XCTUnwrap(schedule.talk(guid: "8079583e-8321-506c-95af-fd2903a5f075"))
        XCTAssertEqual(first, ScheduledTalk(guid: "8079583e-8321-506c-95af-fd2903a5f075", title: "Focused 5thgeneration hardware",
                                            persons: ["Brian Robinson"], room: "Gray Room",
                                            startMs: 1_607_932_800_000, endMs: 1_607_932_800_000 + 30 * 60_000, day: 1))
        XCTAssertEqual(schedule.talks.first, first, "sorted by start, then room: Gray Room's 09:00 before Tan Room's")
        XCTAssertEqual(schedule.talks(inRoom: "Tan Room").count, 9)
        XCTAssertEqual(Set(schedule.talks.map(\.day)), [1, 2, 3])
        // voc added "UTC" by hand to a file whose dates say +01:00; both rooms share one guid.
        XCTAssertEqual(result.problems.count, 2, "\(result.problems)")
        XCTAssertTrue(result.summary.problems.contains {
            $0.hasPrefix("schedule.conference.days[0].day_start: time_zone_name \"UTC\" disagrees with the offsets of 42 date(s)")
        }, "\(result.summary.problems)")
        XCTAssertTrue(result.summary.problems.contains { $0.contains("share the guid b379c473") })
    }

    func testFrabCamp2019DayImports() throws {
        let result = try ScheduleImport.read(scheduleFixture("frab-camp2019-day1.json"))
        XCTAssertEqual(result.summary, ScheduleImport.Summary(rooms: 2, talks: 17, days: 1, problems: []))
        let opening = try XCTUnwrap(result.schedule.talks.first)
        XCTAssertEqual(opening.guid, "a0a0fcfe-b7fb-46e3-84b6-97a5406016b4")
        XCTAssertEqual(opening.title, "Opening Ceremony")
        XCTAssertEqual(opening.persons, ["jinxx", "smtw"], "frab 2019's persons have public_name only")
        XCTAssertEqual(opening.startMs, 1_566_378_000_000)
        XCTAssertEqual(result.schedule.timeZoneName, "Europe/Berlin")
        let last = try XCTUnwrap(result.schedule.talks(inRoom: "Curie").last)
        XCTAssertEqual(last.persons, ["Markus Ossevorth", "Marc-André Janizewski", "Tim Pritlove"])
        XCTAssertEqual(last.durationMs, 90 * 60_000)
    }

    func testTheSameConferenceAsXMLIsTheSameSchedule() throws {
        let json = try ScheduleImport.read(scheduleFixture("pretalx-democon.json"))
        let xml = try ScheduleImport.read(scheduleFixture("pretalx-democon.xml"))
        XCTAssertEqual(xml.format, .xml)
        XCTAssertEqual(xml.schedule, json.schedule)
        XCTAssertEqual(xml.summary.problems.count, 2)
        XCTAssertTrue(xml.summary.problems[0].hasPrefix("line 14: time_zone_name \"UTC\" disagrees with the offsets of 42 date(s)"), "\(xml.summary.problems)")
    }

    /// voc keeps this file as one that fails its schema; nothing Nearcast reads is wrong in it but
    /// where its rooms are.
    func testASchemaInvalidFileImportsWhatItCanWithAProblem() throws {
        let result = try ScheduleImport.read(scheduleFixture("winterchaos2022-schema-invalid.json"))
        XCTAssertEqual(result.summary.talks, 1)
        XCTAssertEqual(result.summary.problems, ["schedule.rooms: rooms belong in schedule.conference.rooms; these are not read"])
        XCTAssertEqual(result.schedule.talks[0].persons, ["Mänu"])
    }

    func testCSVReadsLocalTimesInItsZoneWithTheDayPastMidnight() throws {
        let csv = #"""
            \#u{FEFF}Day,Room,Start,Duration,Title,Speakers,id
            2026-10-02,Hall A,10:00,45,Opening,"Cyber Saiyan",T1
            2026-10-02,Hall A,10:45,0:30,"Happy 15th birthday!",Tiago A,T2
            2026-10-02,Hall B,22:30,120,"After Dark, ""live""",,T3
            2026-10-02,Hall B,24:30,60,Late session,"Doe, Jane; Roe, Rick",T4
            2026-10-02,Hall B,01:30,30,Later still,Night Owl,T5

            2026-10-03,Hall A,9:00,1:00,"Day two,
            with a line break",,T6
            ,,,,,,

            """#
        let result = try importSchedule(csv, timeZone: "Europe/Rome")
        XCTAssertEqual(result.format, .csv)
        XCTAssertEqual(result.summary.rooms, 2)
        XCTAssertEqual(result.summary.talks, 6)
        XCTAssertEqual(result.summary.days, 2)
        XCTAssertEqual(result.summary.problems, ["line 4: \"After Dark, \"live\"\" has no speakers", "line 8: \"Day two,\nwith a line break\" has no speakers"])
        let talks = Dictionary(uniqueKeysWithValues: result.schedule.talks.map { ($0.title, $0) })
        let tenAM = Int64(1_790_928_000_000) // 2026-10-02T08:00:00Z, 10:00 in Rome (CEST, +02:00)
        XCTAssertEqual(talks["Opening"]?.startMs, tenAM)
        XCTAssertEqual(talks["Opening"]?.endMs, tenAM + 45 * 60_000)
        XCTAssertEqual(talks["Late session"]?.startMs, tenAM + (14 * 60 + 30) * 60_000, "24:30 is 00:30 the next morning")
        XCTAssertEqual(talks["Late session"]?.persons, ["Doe, Jane", "Roe, Rick"])
        XCTAssertEqual(talks["Later still"]?.startMs, tenAM + (15 * 60 + 30) * 60_000, "01:30 belongs to the day before, as in pretalx")
        XCTAssertEqual(talks["Later still"]?.day, 1)
        XCTAssertEqual(talks["Day two,\nwith a line break"]?.day, 2)
        XCTAssertEqual(talks["Opening"]?.guid, ScheduleGUID.make(name: "id:T1"))
        XCTAssertEqual(result.schedule.timeZoneName, "Europe/Rome")
    }

    func testCSVGuidsAreStableAndTakenFromAGuidColumnWhenThere() throws {
        let noIDs = "day,room,start,duration,title\n2026-10-02,Hall A,10:00,45,Opening\n"
        let once = try importSchedule(noIDs, timeZone: "UTC").schedule.talks[0].guid
        XCTAssertEqual(try importSchedule(noIDs, timeZone: "UTC").schedule.talks[0].guid, once)
        XCTAssertEqual(once, ScheduleGUID.make(name: "slot:2026-10-02|Hall A|10:00"))
        XCTAssertEqual(once.count, 36)
        XCTAssertEqual(Array(once)[14], "5", "a version-5 UUID")
        let withGUID = "day;room;start;duration;title;guid\n2026-10-02;Hall A;10:00;45;Opening;8079583e-8321-506c-95af-fd2903a5f075\n"
        XCTAssertEqual(try importSchedule(withGUID, timeZone: "UTC").schedule.talks[0].guid, "8079583e-8321-506c-95af-fd2903a5f075",
                       "a semicolon-separated file, as a German spreadsheet saves it")
    }

    func testCSVDaylightSavingTimesAreResolvedOrRefused() throws {
        // Europe/Berlin, 2026-10-25: 02:00-02:59 happens twice; 2026-03-29: 02:00-02:59 never happens.
        let repeated = try importSchedule("day,room,start,duration,title,speakers\n2026-10-24,A,26:30,30,Twice,X\n",
                                          timeZone: "Europe/Berlin")
        XCTAssertEqual(repeated.schedule.talks[0].startMs, 1_792_888_200_000, "the first 02:30, at +02:00 (00:30Z)")
        XCTAssertEqual(repeated.summary.problems, ["line 2: start 26:30 happens twice in Europe/Berlin (a DST change); the first is taken"])
        XCTAssertThrowsError(try ScheduleImport.read(Data("day,room,start,duration,title\n2026-03-28,A,02:30,30,Never\n".utf8),
                                                     options: .init(timeZone: "Europe/Berlin"))) {
            XCTAssertEqual(($0 as? ScheduleImportError)?.reason, .badTime)
            XCTAssertEqual("\($0)", "line 2: start 02:30 on 2026-03-28 does not exist in Europe/Berlin (a DST change skips it)")
        }
    }

    func testFormatsAreDetectedFromTheContent() {
        XCTAssertEqual(ScheduleImport.Format.detect(Data("  \n{\"schedule\": {}}".utf8)), .json)
        XCTAssertEqual(ScheduleImport.Format.detect(Data("\u{FEFF}<?xml version='1.0'?><schedule/>".utf8)), .xml)
        XCTAssertEqual(ScheduleImport.Format.detect(Data("day,room,start\n".utf8)), .csv)
        XCTAssertNil(ScheduleImport.Format.detect(Data(" \n\t".utf8)))
    }

    func testDurationsInEveryFormTheExportsWrite() {
        XCTAssertEqual(ScheduleDuration.seconds("00:45", threePartsAreDays: false)?.seconds, 45 * 60)
        XCTAssertEqual(ScheduleDuration.seconds("25:00", threePartsAreDays: false)?.seconds, 25 * 3600, "frab: hours uncapped")
        XCTAssertEqual(ScheduleDuration.seconds("1:02:00", threePartsAreDays: true)?.seconds, 26 * 3600, "pretalx: D:HH:MM")
        XCTAssertEqual(ScheduleDuration.seconds("1:02:00", threePartsAreDays: false)?.seconds, 3720, "the XSD: H:MM:SS")
        XCTAssertEqual(ScheduleDuration.seconds("0:30:5", threePartsAreDays: false)?.seconds, 1805)
        for bad in ["135.0:00", "1:75", "-0:30", "45", "1:2:3:4", "", ":30", "0:30:99", "1:24:00x"] {
            XCTAssertNil(ScheduleDuration.seconds(bad, threePartsAreDays: true), bad)
        }
    }

    func testDateTimesWithAndWithoutOffsets() {
        XCTAssertEqual(ScheduleTime.stamp("2020-12-14T09:00:00+01:00")?.instantMs, 1_607_932_800_000)
        XCTAssertEqual(ScheduleTime.stamp("2020-12-14T08:00:00Z")?.instantMs, 1_607_932_800_000)
        XCTAssertEqual(ScheduleTime.stamp("2020-12-14T03:30-0430")?.instantMs, 1_607_932_800_000)
        XCTAssertEqual(ScheduleTime.stamp("2020-12-14 09:00:00.250+01:00")?.instantMs, 1_607_932_800_000)
        XCTAssertEqual(ScheduleTime.stamp("2020-12-14T09:00:00")?.offsetSeconds, nil)
        XCTAssertEqual(ScheduleTime.stamp("2024-02-29T00:00:00Z")?.instantMs, 1_709_164_800_000)
        for bad in ["2020-12-14", "2023-02-29T00:00Z", "2020-12-14T24:00Z", "2020-12-14T09:00+1", "14.12.2020 09:00", "2020-12-14T09:00:00+01:00 "] {
            XCTAssertNil(ScheduleTime.stamp(bad), bad)
        }
    }

    /// pretalx writes `end` since 2026.2 and `D:HH:MM` from 24 h; a date without offset is read in
    /// time_zone_name's zone; `start` disagreeing with `date` is a problem, the date wins.
    func testJSONEndDaysDurationsZonesAndStartChecks() throws {
        let json = ScheduleJSONSamples.schedule(generator: "pretalx", zone: "Europe/Rome", rooms: ["Saal 1": [
            ScheduleJSONSamples.event(guid: "g1", title: "CTF", date: "2026-10-02T17:00:00+02:00", duration: "1:02:00"),
            ScheduleJSONSamples.event(guid: "g2", title: "Ends", date: "2026-10-03T20:00:00+02:00", duration: "00:30",
                                      extra: ["end": "2026-10-03T20:45:00+02:00"]),
            ScheduleJSONSamples.event(guid: "g3", title: "Local", date: "2026-10-03T22:00:00", duration: "00:30", start: "21:00"),
        ]])
        let result = try importSchedule(json)
        let talks = result.schedule.talks
        XCTAssertEqual(talks[0].durationMs, 26 * 3_600_000)
        XCTAssertEqual(talks[1].durationMs, 45 * 60_000, "end is taken over duration")
        XCTAssertEqual(talks[2].startMs, talks[1].startMs + 2 * 3_600_000, "22:00 in Rome")
        XCTAssertEqual(result.summary.problems.sorted(), [
            "schedule.conference.days[0].rooms[\"Saal 1\"][0].duration: \"CTF\" lasts 26 h",
            "schedule.conference.days[0].rooms[\"Saal 1\"][1]: \"Ends\" starts outside its day 1 (2026-10-02)",
            "schedule.conference.days[0].rooms[\"Saal 1\"][1].duration: duration 00:30 disagrees with end 2026-10-03T20:45:00+02:00; the end is taken",
            "schedule.conference.days[0].rooms[\"Saal 1\"][2].start: start 21:00 disagrees with date 2026-10-03T22:00:00; the date is taken",
            "schedule.conference.days[0].rooms[\"Saal 1\"][2]: \"Local\" starts outside its day 1 (2026-10-02)",
        ].sorted())
    }

    /// `1:02:00` is 26 hours from pretalx and 1 h 2 min from anyone else (voc/schedule issue 129).
    func testThreePartXMLDurationsAreReadByTheirGenerator() throws {
        func xml(generator: String?) -> String {
            """
            <?xml version='1.0' encoding='utf-8' ?>
            <schedule>
            \(generator.map { "<generator name='\($0)' version='2026.2.1'/>" } ?? "")
            <version>1</version>
            <conference><title>T</title><time_zone_name>Europe/Rome</time_zone_name></conference>
            <day index='1' date='2026-10-02' start='2026-10-02T04:00:00+02:00' end='2026-10-03T03:59:00+02:00'>
              <room name='WORKSHOP 2'>
                <event guid='5642155c-3d83-58df-8c2e-ad348d7ea737' id='193'>
                  <room>WORKSHOP 2</room>
                  <title>CTF</title>
                  <date>2026-10-02T17:00:00+02:00</date>
                  <start>17:00</start>
                  <duration>1:02:00</duration>
                  <persons><person id='1'>Team</person></persons>
                </event>
              </room>
            </day>
            </schedule>
            """
        }
        let pretalx = try importSchedule(xml(generator: "pretalx"))
        XCTAssertEqual(pretalx.schedule.talks[0].durationMs, 26 * 3_600_000)
        XCTAssertEqual(pretalx.summary.problems, ["line 13: \"CTF\" lasts 26 h"])
        let other = try importSchedule(xml(generator: nil))
        XCTAssertEqual(other.schedule.talks[0].durationMs, (60 + 2) * 60_000)
        XCTAssertEqual(other.summary.problems, ["line 13: 1 duration(s) of three parts read as H:MM:SS (pretalx would mean D:HH:MM)"])
    }

    func testTheSummaryEncodesAsTheIssueAsks() throws {
        let summary = ScheduleImport.Summary(rooms: 2, talks: 36, days: 3, problems: ["x"])
        XCTAssertEqual(String(decoding: try JSONText.encode(summary), as: UTF8.self),
                       #"{"days":3,"problems":["x"],"rooms":2,"talks":36}"#)
    }
}

/// Small frab-compatible schedule.json documents for tests, written as the c3voc schema has them.
enum ScheduleJSONSamples {
    static func event(guid: String?, title: String?, date: String?, duration: String?, room: String? = nil,
                      start: String? = nil, persons: [String] = ["Ada"], extra: [String: Any] = [:]) -> [String: Any] {
        var event: [String: Any] = ["persons": persons.map { ["name": $0] }]
        if let guid { event["guid"] = guid }
        if let title { event["title"] = title }
        if let date { event["date"] = date }
        if let duration { event["duration"] = duration }
        if let room { event["room"] = room }
        if let start { event["start"] = start }
        return event.merging(extra) { _, new in new }
    }

    /// One day (2026-10-02, 04:00-03:59 at +02:00) holding `rooms`, or several.
    static func schedule(generator: String? = nil, zone: String? = nil, declaredRooms: [String]? = nil,
                         rooms: [String: [[String: Any]]], moreDays: [[String: [[String: Any]]]] = []) -> String {
        var conference: [String: Any] = ["title": "Test", "acronym": "test"]
        if let zone { conference["time_zone_name"] = zone }
        if let declaredRooms { conference["rooms"] = declaredRooms.map { ["name": $0, "guid": "00000000-0000-0000-0000-00000000000\($0.count % 10)"] } }
        conference["days"] = ([rooms] + moreDays).enumerated().map { index, rooms -> [String: Any] in
            let date = "2026-10-0\(index + 2)"
            return ["index": index + 1, "date": date, "day_start": "\(date)T04:00:00+02:00",
                    "day_end": "2026-10-0\(index + 3)T03:59:00+02:00",
                    "rooms": rooms]
        }
        var top: [String: Any] = ["schedule": ["version": "1", "conference": conference]]
        if let generator { top["generator"] = ["name": generator] }
        let data = try! JSONSerialization.data(withJSONObject: top, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }
}
