import Foundation
@testable import NearcastHub
import XCTest

/// Importing a 500-talk schedule, timed and printed (not asserted: the machine's load is not the
/// importer's). docs/schedule-import.md records a run.
final class ScheduleBenchmarkTests: XCTestCase {
    /// 5 rooms x 4 days x 25 talks of 25 minutes, 30 minutes apart, from 09:00 (+01:00), with the
    /// fields a pretalx export has, in the three formats.
    static func fiveHundredTalks() -> (json: Data, xml: Data, csv: Data) {
        var days: [[String: Any]] = []
        var xml = "<?xml version='1.0' encoding='utf-8' ?>\n<schedule>\n<generator name='pretalx' version='2026.2.1'/>\n<version>1</version>\n"
            + "<conference><title>Bench</title><acronym>bench</acronym><time_zone_name>Europe/Berlin</time_zone_name></conference>\n"
        var csv = "day,room,start,duration,title,speakers,id\n"
        for day in 1...4 {
            let date = "2026-11-2\(day)"
            var rooms: [String: [[String: Any]]] = [:]
            xml += "<day index='\(day)' date='\(date)' start='\(date)T04:00:00+01:00' end='2026-11-2\(day + 1)T03:59:00+01:00'>\n"
            for room in 1...5 {
                let name = "Saal \(room)"
                xml += "<room name='\(name)'>\n"
                rooms[name] = (0..<25).map { slot in
                    let minutes = 9 * 60 + slot * 30
                    let clock = String(format: "%02d:%02d", minutes / 60, minutes % 60)
                    let guid = String(format: "%08x-0000-5000-8000-%012x", day * 1000 + room * 100 + slot, slot)
                    let title = "Talk \(slot) in \(name) on day \(day): a title of a usual length"
                    xml += "<event guid='\(guid)' id='\(day * 1000 + room * 100 + slot)'><room>\(name)</room><title>\(title)</title>"
                        + "<subtitle/><type>Talk</type><date>\(date)T\(clock):00+01:00</date><start>\(clock)</start><duration>00:25</duration>"
                        + "<abstract>\(String(repeating: "An abstract. ", count: 40))</abstract><track>T</track>"
                        + "<persons><person id='1'>Ada Lovelace</person><person id='2'>Grace Hopper</person></persons></event>\n"
                    csv += "\(date),\(name),\(clock),25,\"\(title)\",Ada Lovelace; Grace Hopper,\(guid)\n"
                    return ["guid": guid, "id": day * 1000 + room * 100 + slot, "date": "\(date)T\(clock):00+01:00", "start": clock,
                            "duration": "00:25", "room": name, "title": title, "subtitle": "", "track": "T", "type": "Talk",
                            "abstract": String(repeating: "An abstract. ", count: 40), "language": "en",
                            "persons": [["name": "Ada Lovelace", "code": "ADA111"], ["name": "Grace Hopper", "code": "GRA222"]],
                            "links": [], "attachments": []]
                }
                xml += "</room>\n"
            }
            xml += "</day>\n"
            days.append(["index": day, "date": date, "day_start": "\(date)T04:00:00+01:00",
                         "day_end": "2026-11-2\(day + 1)T03:59:00+01:00", "rooms": rooms])
        }
        xml += "</schedule>\n"
        let top: [String: Any] = ["generator": ["name": "pretalx"], "schedule": [
            "version": "1", "conference": ["title": "Bench", "acronym": "bench", "time_zone_name": "Europe/Berlin", "days": days]]]
        let json = try! JSONSerialization.data(withJSONObject: top, options: [.prettyPrinted])
        return (json, Data(xml.utf8), Data(csv.utf8))
    }

    func testImportingFiveHundredTalks() throws {
        let files = Self.fiveHundredTalks()
        let clock = ContinuousClock()
        for (name, data, zone) in [("json", files.json, nil), ("xml", files.xml, nil), ("csv", files.csv, "Europe/Berlin")] {
            var result: ScheduleImport.Result?
            var best = Duration.seconds(3600)
            for _ in 0..<3 {
                let took = try clock.measure { result = try ScheduleImport.read(data, options: .init(timeZone: zone)) }
                best = min(best, took)
            }
            XCTAssertEqual(result?.summary, ScheduleImport.Summary(rooms: 5, talks: 500, days: 4, problems: []))
            let ms = Double(best.components.attoseconds) / 1e15 + Double(best.components.seconds) * 1000
            print("schedule import, 500 talks, \(name), \(data.count) bytes: \(String(format: "%.1f", ms)) ms (best of 3, debug build)")
        }
        let schedule = try ScheduleImport.read(files.json).schedule
        let next = try ScheduleImport.read(files.csv, options: .init(timeZone: "Europe/Berlin")).schedule
        let took = clock.measure { _ = ScheduleChange(from: schedule, to: next) }
        print("schedule change, 500 talks against 500: \(took)")
    }
}
