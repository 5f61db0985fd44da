import ArgumentParser
import Foundation
import NearcastHub
import NearcastHubStorage

/// `nearcast-hub schedule import|show|rooms`.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Import a conference's schedule, and see its rooms and their boxes.",
        subcommands: [Import.self, Show.self, Rooms.self, Talks.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a schedule file the project's schedule in force; prints what it has and changed, as JSON.",
            discussion: """
                FILE is pretalx's or frab's export (schedule.json or schedule.xml, "frab compatible") or a CSV \
                with the columns day, room, start, duration, title, speakers. Importing again replaces the schedule, \
                talk by talk by its guid: a moved talk moves, a removed one goes (a talk on stage finishes first). \
                A file with a fault is refused as a whole, naming the line or field; the schedule in force stays. \
                See docs/schedule-import.md.
                """)

        @Argument(help: "The schedule file, or its address (http:// or https://) at the conference tool.")
        var file: String

        @Option(name: .long, help: "For an address: have the hub fetch it again every MINUTES (1-1440) while it serves. Default: once.")
        var every: Int?

        @Option(name: .long, help: "The project.")
        var project: String

        @Option(name: .long, help: "The IANA time zone of a CSV's times (Europe/Berlin), or of an export's dates without an offset.")
        var timeZone: String?

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let isAddress = file.hasPrefix("http://") || file.hasPrefix("https://")
            if every != nil && !isAddress {
                throw ValidationError("--every keeps an address in step: give the schedule's http:// or https:// address")
            }
            print(try await options.withDatabase(context: "\(file): ") {
                isAddress
                    ? try await ScheduleLibrary(database: $0).importURL(file, everyMinutes: every ?? 0, project: project, timeZone: timeZone)
                    : try await ScheduleLibrary(database: $0).importFile(file, project: project, timeZone: timeZone)
            })
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the project's schedule in force, counted, as JSON.")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await ScheduleLibrary(database: $0).summaryJSON(project: project) })
        }
    }

    struct Rooms: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every room with its box, the talk on now and the next, and what to put right, as JSON.")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await ScheduleLibrary(database: $0).roomsJSON(project: project) })
        }
    }

    struct Talks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every talk with its room, its deck (null until its speaker sends one) and its upload address, as JSON.",
            discussion: "Send each speaker the hub's address followed by their talk's uploadPath: it takes their PDF, no key needed.")

        @Option(name: .long, help: "The project.")
        var project: String

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            print(try await options.withDatabase { try await ScheduleLibrary(database: $0).talksJSON(project: project) })
        }
    }
}
