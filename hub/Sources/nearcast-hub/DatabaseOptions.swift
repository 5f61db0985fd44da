import ArgumentParser
import Foundation
import Logging
import NearcastHub
import NearcastHubStorage

/// `--config`, `--db` and `--log-level`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A config file (JSON5), as the Debian package's /etc/nearcast-hub/hub.json5; the other options win over it",
        valueName: "file"))
    var config: String?

    @Option(name: .long, help: "sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default sqlite:nearcast-hub.sqlite)")
    var db: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning or error (default info)")
    var logLevel: String?

    /// The config file's settings (none without --config); a bad file is one line naming it.
    func configFile() throws -> HubConfigFile {
        guard let config else { return HubConfigFile() }
        do {
            return try HubConfigFile.load(path: config)
        } catch {
            throw HubFailure(message: "--config \(error.description)")
        }
    }

    func location() throws -> DatabaseLocation {
        guard let db = try db ?? configFile().database else { return .defaultLocation }
        do {
            return try DatabaseLocation(parsing: db)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Logs go to stderr: stdout carries only what a command prints for scripts (the project's
    /// keys, the served address).
    private static let logToStandardError: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)

    func logger() throws -> Logger {
        Self.logToStandardError
        let logLevel = try self.logLevel ?? configFile().logLevel ?? "info"
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \(logLevel): use trace, debug, info, notice, warning or error")
        }
        var logger = Logger(label: "nearcast-hub")
        logger.logLevel = level
        return logger
    }

    /// Runs `body` with the database open and closes it after, however `body` ends; an
    /// `APIError` (a refusal: a bad file, an unknown project) becomes one line on stderr and exit
    /// status 1, prefixed with `context`.
    func withDatabase<R>(context: String = "", _ body: (HubDatabase) async throws -> R) async throws -> R {
        let database = try await open()
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch let error as APIError {
            await database.close()
            throw HubFailure(message: context + error.message)
        } catch {
            await database.close()
            throw error
        }
    }

    func open() async throws -> HubDatabase {
        let location = try location()
        do {
            return try await HubDatabase.open(location, logger: try logger())
        } catch let error as HubConfigurationError {
            throw CleanExit.message("nearcast-hub: \(error.description)").asFailure
        }
    }
}

extension CleanExit {
    /// An error line on stderr and exit status 1.
    var asFailure: any Error { HubFailure(message: "\(self)") }
}

struct HubFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message.replacingOccurrences(of: "nearcast-hub: ", with: "") }
}
