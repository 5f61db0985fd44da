@testable import NearcastHub
import XCTest

/// Which day the operators' page shows: the one on now (past midnight too), else the next, else the last.
final class ScheduleDayChoiceTests: XCTestCase {
    static let hour: Int64 = 3_600_000

    static func talk(_ guid: String, day: Int, fromHour start: Int64, toHour end: Int64) -> ScheduledTalk {
        ScheduledTalk(guid: guid, title: guid, persons: [], room: "Curie", startMs: start * hour, endMs: end * hour, day: day)
    }

    /// Day 1 from 10:00 until 01:00 the next morning; day 2 from 34:00 (10:00) until 40:00.
    static let schedule = ConferenceSchedule(
        version: nil, timeZoneName: nil, rooms: [ScheduleRoom(name: "Curie")],
        days: [ScheduleDay(index: 1, date: "2026-11-28"), ScheduleDay(index: 2, date: "2026-11-29")],
        talks: [talk("a", day: 1, fromHour: 10, toHour: 11), talk("late", day: 1, fromHour: 24, toHour: 25),
                talk("b", day: 2, fromHour: 34, toHour: 40)])

    func choice(atHour hour: Int64, index: Int? = nil) -> ScheduleDayChoice {
        ScheduleDayChoice(schedule: Self.schedule, nowMs: hour * Self.hour, index: index)
    }

    func testTheDayOnNowThenTheNextThenTheLast() {
        XCTAssertEqual(choice(atHour: 0).day?.index, 1, "before the conference: its first day")
        XCTAssertEqual(choice(atHour: 24).day?.index, 1, "past midnight, the late talk on: still day 1")
        XCTAssertEqual(choice(atHour: 24).talks(inRoom: "Curie").map(\.guid), ["a", "late"])
        XCTAssertEqual(choice(atHour: 25).day?.index, 2, "day 1 over: the next")
        XCTAssertEqual(choice(atHour: 50).day?.index, 2, "after the conference: its last day")
        XCTAssertEqual(choice(atHour: 50, index: 1).talks.map(\.guid), ["a", "late"])
        XCTAssertNil(choice(atHour: 0, index: 3).day)
        XCTAssertEqual(ScheduleDayChoice(schedule: .empty, nowMs: 0).talks, [])
        XCTAssertNil(ScheduleDayChoice(schedule: .empty, nowMs: 0).day)
    }
}
