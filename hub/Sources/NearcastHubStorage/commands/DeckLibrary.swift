import Foundation
import NearcastHub

/// Decks for the command line (`nearcast-hub deck ...`): the same checks, rendering and storage
/// as `POST /v1/decks`, against the database directly.
public struct DeckLibrary: Sendable {
    let store: DeckStore
    let projects: ProjectStore
    let renderer: DeckRenderer

    /// `limits`: the config file's `decks` (the deadline and the project's quota apply here too).
    public init(database: HubDatabase, limits: DeckLimits = DeckLimits()) {
        // A deck removed here ends its shows: on PostgreSQL the hubs serving them hear of it
        // (NOTIFY); an SQLite hub on the same file is not told, as it sees no other process's writes.
        let shows = ChangeNotifier(channel: ChangeNotifier.showsChannel, isPostgres: database.isPostgres) { _ in }
        store = DeckStore(database: database, clock: .system, notifier: shows, quotaBytes: limits.storagePerProjectBytes)
        projects = ProjectStore(database: database)
        renderer = DeckRenderer(limits: .init(limits))
    }

    /// Renders and stores a PDF file; throws an `APIError` naming what is wrong.
    public func add(file path: String, project: String, title: String?) async throws -> CreatedDeckJSON {
        try await requireProject(project)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APIError(.badRequest, "\(path): cannot read the file")
        }
        guard data.count <= renderer.limits.maximumBytes else {
            throw APIError(.contentTooLarge, "\(path) is \(data.count) bytes; a deck may be at most \(renderer.limits.maximumBytes / 1024 / 1024) MB")
        }
        try await store.checkRoom(project: project)
        let rendered = try await renderer.render([UInt8](data))
        let name = title ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let deck = try await store.add(project: project, title: String(name.prefix(200)), sourceBytes: data.count, rendered: rendered)
        return CreatedDeckJSON(deck: deck.deckID, pages: deck.pages)
    }

    /// The project's decks as the API lists them, as JSON text.
    public func listJSON(project: String) async throws -> String {
        try await requireProject(project)
        return String(decoding: try JSONText.encode(DeckListJSON(decks: try await store.list(project: project).map(\.json))), as: UTF8.self)
    }

    public func remove(deckID: String, project: String) async throws {
        try await requireProject(project)
        _ = try await store.delete(project: project, deckID: deckID)
    }

    private func requireProject(_ project: String) async throws {
        guard try await projects.names().contains(project) else {
            throw APIError(.notFound, "project \(project) not found (nearcast-hub project list shows the projects)")
        }
    }
}

/// A project's reaction choices for the command line (`nearcast-hub reactions ...`), checked as
/// `PUT /v1/reactions/choices` checks them.
public struct ReactionLibrary: Sendable {
    let store: ReactionChoicesStore
    let projects: ProjectStore

    public init(database: HubDatabase) {
        store = ReactionChoicesStore(database: database)
        projects = ProjectStore(database: database)
    }

    /// Sets the choices: `emoji` nil keeps the current ones, `images` (name, PNG file) nil keeps
    /// the current images; returns them as JSON text.
    public func set(project: String, enabled: Bool?, emoji: [String]?, images: [(name: String, file: String)]?) async throws -> String {
        try await requireProject(project)
        let current = try await store.get(project: project)
        var update = ReactionChoicesUpdate(enabled: enabled ?? current.enabled, emoji: emoji ?? current.emoji)
        if let images {
            update.images = try images.map { image in
                guard let data = FileManager.default.contents(atPath: image.file) else {
                    throw APIError(.badRequest, "\(image.file): cannot read the file")
                }
                return .init(name: image.name, png: data.base64EncodedString())
            }
        } else {
            update.images = current.images.map { .init(name: $0.key, png: Data($0.value).base64EncodedString()) }
        }
        let choices = try ReactionChoices.validated(update)
        try await store.set(project: project, choices)
        return String(decoding: try JSONText.encode(choices.json), as: UTF8.self)
    }

    public func showJSON(project: String) async throws -> String {
        try await requireProject(project)
        return String(decoding: try JSONText.encode(try await store.get(project: project).json), as: UTF8.self)
    }

    private func requireProject(_ project: String) async throws {
        guard try await projects.names().contains(project) else {
            throw APIError(.notFound, "project \(project) not found (nearcast-hub project list shows the projects)")
        }
    }
}
