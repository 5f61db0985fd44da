@testable import NearcastHub
import XCTest

/// The change between the schedule in force and a new one, by guid, and which live talks finish first.
final class ScheduleChangeTests: XCTestCase {
    private let minute: Int64 = 60_000
    private let nine: Int64 = 1_790_924_400_000 // 2026-10-02T09:00:00+02:00

    private func talk(_ guid: String, _ title: String, room: String = "A", at start: Int64, minutes: Int64 = 30,
                      persons: [String] = ["Ada"]) -> ScheduledTalk {
        ScheduledTalk(guid: guid, title: title, persons: persons, room: room, startMs: nine + start * minute,
                      endMs: nine + (start + minutes) * minute, day: 1)
    }

    private func schedule(_ talks: [ScheduledTalk]) -> ConferenceSchedule {
        ConferenceSchedule(version: nil, timeZoneName: nil, rooms: [ScheduleRoom(name: "A"), ScheduleRoom(name: "B")],
                           days: [ScheduleDay(index: 1, date: "2026-10-02")], talks: talks)
    }

    func testTheSameScheduleChangesNothing() throws {
        let democon = try ScheduleImport.read(scheduleFixture("pretalx-democon.json")).schedule
        let change = ScheduleChange(from: democon, to: democon)
        XCTAssertTrue(change.isEmpty)
        XCTAssertEqual(change.unchanged, 36)
        XCTAssertEqual(ScheduleChange(from: .empty, to: democon).added.count, 36, "the first import adds every talk")
        XCTAssertEqual(ScheduleChange(from: democon, to: .empty).removed.count, 36)
    }

    func testAddedMovedRetitledRespokenAndRemovedByGuid() {
        let old = schedule([talk("keep", "Keep", at: 0), talk("time", "Time", at: 30), talk("room", "Room", at: 60),
                            talk("title", "Old title", at: 90), talk("gone", "Gone", at: 120), talk("people", "People", at: 150),
                            talk("both", "Both", at: 180)])
        let new = schedule([talk("keep", "Keep", at: 0), talk("time", "Time", at: 45), talk("room", "Room", room: "B", at: 60),
                            talk("title", "New title", at: 90), talk("people", "People", at: 150, persons: ["Ada", "Grace"]),
                            talk("both", "Both, renamed", at: 200), talk("new", "New", at: 240)])
        let change = ScheduleChange(from: old, to: new)
        XCTAssertEqual(change.added.map(\.guid), ["new"])
        XCTAssertEqual(change.removed.map(\.guid), ["gone"])
        XCTAssertEqual(change.moved.map(\.after.guid), ["time", "room", "both"])
        XCTAssertEqual(change.moved.first?.before.startMs, nine + 30 * minute)
        XCTAssertEqual(change.moved.first?.after.startMs, nine + 45 * minute)
        XCTAssertEqual(change.retitled.map(\.after.title), ["New title", "Both, renamed"])
        XCTAssertEqual(change.respoken.map(\.after.persons), [["Ada", "Grace"]])
        XCTAssertEqual(change.unchanged, 1)
        XCTAssertFalse(change.isEmpty)
        // A change of length alone is a move: the talk's slot is not what it was.
        let longer = ScheduleChange(from: schedule([talk("x", "X", at: 0)]), to: schedule([talk("x", "X", at: 0, minutes: 45)]))
        XCTAssertEqual(longer.moved.count, 1)
    }

    /// A removed or moved talk that is on stage finishes first; one that is not on, or only
    /// retitled, does not.
    func testLiveTalksThatAreRemovedOrMovedFinishFirst() {
        let old = schedule([talk("removed", "Removed", at: 0, minutes: 60), talk("moved", "Moved", room: "B", at: 0, minutes: 60),
                            talk("later", "Later, removed", at: 120), talk("retitled", "Retitled", at: 60)])
        let new = schedule([talk("moved", "Moved", room: "A", at: 300), talk("retitled", "Renamed", at: 60)])
        let change = ScheduleChange(from: old, to: new)
        XCTAssertEqual(change.finishingFirst(atMs: nine - 1).map(\.guid), [], "before they start, they just go")
        XCTAssertEqual(change.finishingFirst(atMs: nine).map(\.guid), ["removed", "moved"])
        XCTAssertEqual(change.finishingFirst(atMs: nine + 59 * minute).map(\.room), ["A", "B"], "in their old rooms")
        XCTAssertEqual(change.finishingFirst(atMs: nine + 60 * minute).map(\.guid), [], "at their end they are over")
        XCTAssertEqual(change.finishingFirst(atMs: nine + 70 * minute).map(\.guid), [], "a retitled talk runs on under the new schedule")
        XCTAssertEqual(change.finishingFirst(atMs: nine + 130 * minute).map(\.guid), ["later"])
    }
}
