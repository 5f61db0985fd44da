@testable import NearcastHub
import XCTest

/// A room's talk now and next at every edge: before the first talk, at a start, between talks, at
/// the last one's end, past midnight, and with a talk that finishes first.
final class ScheduleTimelineTests: XCTestCase {
    private let minute: Int64 = 60_000
    private let nine: Int64 = 1_790_924_400_000 // 2026-10-02T09:00:00+02:00

    private func talk(_ guid: String, room: String = "A", at start: Int64, minutes: Int64 = 30) -> ScheduledTalk {
        ScheduledTalk(guid: guid, title: guid, persons: [], room: room, startMs: nine + start * minute,
                      endMs: nine + (start + minutes) * minute, day: 1)
    }

    private func at(_ timeline: RoomTimeline, _ minutes: Int64, plusMs: Int64 = 0) -> [String?] {
        let moment = timeline.moment(atMs: nine + minutes * minute + plusMs)
        return [moment.now?.guid, moment.next?.guid]
    }

    func testNowAndNextAtEveryEdge() {
        // A 09:00-09:30, B 09:30-10:00 (back to back), C 11:00-11:45; D is another room's.
        let timeline = RoomTimeline(room: "A", talks: [talk("C", at: 120, minutes: 45), talk("A", at: 0), talk("B", at: 30),
                                                       talk("D", room: "B", at: 60)])
        XCTAssertEqual(timeline.talks.map(\.guid), ["A", "B", "C"], "sorted, this room's only")
        XCTAssertEqual(at(timeline, -600), [nil, "A"], "long before the first")
        XCTAssertEqual(at(timeline, 0, plusMs: -1), [nil, "A"], "a millisecond before the first")
        XCTAssertEqual(at(timeline, 0), ["A", "B"], "at its start it is on")
        XCTAssertEqual(at(timeline, 29, plusMs: 59_999), ["A", "B"])
        XCTAssertEqual(at(timeline, 30), ["B", "C"], "back to back: at A's end, B is on")
        XCTAssertEqual(at(timeline, 60), [nil, "C"], "between talks")
        XCTAssertEqual(at(timeline, 90), [nil, "C"])
        XCTAssertEqual(at(timeline, 165, plusMs: -1), ["C", nil], "the last talk's last millisecond")
        XCTAssertEqual(at(timeline, 165), [nil, nil], "the last one's end")
        XCTAssertEqual(at(RoomTimeline(room: "A", talks: []), 0), [nil, nil], "a room without talks")
    }

    func testATalkPastMidnightIsOneTalk() throws {
        let csv = "day,room,start,duration,title\n2026-10-02,A,23:30,60,Midnight\n2026-10-02,A,00:45,30,Late\n2026-10-03,A,10:00,30,Morning\n"
        let schedule = try importSchedule(csv, timeZone: "Europe/Rome").schedule
        let timeline = try XCTUnwrap(schedule.timelines()["A"])
        let midnight = try XCTUnwrap(schedule.talks.first)
        XCTAssertEqual(midnight.title, "Midnight")
        XCTAssertEqual(timeline.moment(atMs: midnight.startMs + 40 * minute).now?.title, "Midnight", "00:10 the next morning")
        XCTAssertEqual(timeline.moment(atMs: midnight.startMs + 40 * minute).next?.title, "Late")
        XCTAssertEqual(timeline.moment(atMs: midnight.endMs).next?.title, "Late")
        XCTAssertEqual(timeline.moment(atMs: midnight.startMs + 80 * minute).now?.title, "Late")
        XCTAssertEqual(timeline.moment(atMs: midnight.startMs + 80 * minute).next?.title, "Morning")
        XCTAssertEqual(schedule.talks.map(\.day), [1, 1, 2])
    }

    /// A live talk removed by a re-import keeps the room until its end; the new schedule's talk
    /// that was to start meanwhile is next, and takes over at that end.
    func testATalkThatFinishesFirstHoldsTheRoom() {
        let live = talk("live", at: 0, minutes: 60)
        let newcomer = talk("newcomer", at: 45)     // 09:45-10:15, starting inside live's hour
        let swallowed = talk("swallowed", at: 35, minutes: 10) // 09:35-09:45: over before live ends
        let after = talk("after", at: 90)
        let timeline = RoomTimeline(room: "A", talks: [newcomer, swallowed, after], finishingFirst: [live, talk("other", room: "B", at: 0)])
        XCTAssertEqual(timeline.finishingFirst.map(\.guid), ["live"])
        XCTAssertEqual(at(timeline, 10), ["live", "newcomer"])
        XCTAssertEqual(at(timeline, 50), ["live", "newcomer"], "newcomer's start has passed, but live finishes first")
        XCTAssertEqual(at(timeline, 60), ["newcomer", "after"], "at live's end the new schedule runs")
        XCTAssertEqual(at(timeline, 120), [nil, nil])
        // Through the schedule: a moved live talk finishes in its old slot and also has its new one.
        let old = ConferenceSchedule(version: nil, timeZoneName: nil, rooms: [ScheduleRoom(name: "A")], days: [], talks: [live])
        let moved = talk("live", room: "B", at: 300)
        let new = ConferenceSchedule(version: nil, timeZoneName: nil, rooms: [ScheduleRoom(name: "A"), ScheduleRoom(name: "B")],
                                     days: [], talks: [moved])
        let holdovers = ScheduleChange(from: old, to: new).finishingFirst(atMs: nine + 10 * minute)
        let timelines = new.timelines(finishingFirst: holdovers)
        XCTAssertEqual(timelines["A"]?.moment(atMs: nine + 10 * minute).now, live)
        XCTAssertEqual(timelines["A"]?.moment(atMs: nine + 60 * minute).now, nil)
        XCTAssertEqual(timelines["B"]?.moment(atMs: nine + 10 * minute).next, moved)
    }
}
