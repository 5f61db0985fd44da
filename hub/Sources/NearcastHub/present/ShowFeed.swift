import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// This instance's open show streams (`/v1/shows/BEACON/events`), and their fan-out: a change
/// to a show is read from the database once and the same bytes go to every follower, so a slide
/// change costs one read however many phones follow (watches of attachments read once each).
///
/// Followers (the public key or a pass) get `event: show` only when what they see changed;
/// presenters (the secret key) also get follower counts, the sight code and reaction batches.
/// Keep-alives come from one ticker for all streams, not a task per connection.
public final class ShowFeed: Sendable {
    struct Key: Hashable, Sendable {
        var project: String
        var beaconName: String
    }

    /// Who holds a stream.
    enum Role: Sendable {
        case follower
        case presenter
    }

    private struct Subscriber {
        var role: Role
        var continuation: AsyncStream<ByteBuffer>.Continuation
    }

    private struct State {
        var subscribers: [Key: [UUID: Subscriber]] = [:]
        /// What followers were last sent per show, to skip sending the same again.
        var lastFollowerEvent: [Key: ByteBuffer] = [:]
        var refresh: (@Sendable (Key) async -> Void)?
        var refreshing: Set<Key> = []
        var refreshAgain: Set<Key> = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// What reads a show and sends it (`HubServices` installs it).
    func setRefresh(_ refresh: @escaping @Sendable (Key) async -> Void) {
        state.withLockedValue { $0.refresh = refresh }
    }

    /// Open streams, by role.
    var followerCount: Int { count(.follower) }
    var presenterCount: Int { count(.presenter) }

    private func count(_ role: Role) -> Int {
        state.withLockedValue { $0.subscribers.values.reduce(0) { $0 + $1.values.filter { $0.role == role }.count } }
    }

    /// Followers per show on this instance.
    func followersByShow() -> [Key: Int] {
        state.withLockedValue { state in
            state.subscribers.mapValues { $0.values.filter { $0.role == .follower }.count }
        }
    }

    /// A stream for one show, and its continuation (for the first event, which only this stream
    /// gets); it ends when the consumer stops reading or the show ends.
    func subscribe(_ key: Key, role: Role) -> (AsyncStream<ByteBuffer>, AsyncStream<ByteBuffer>.Continuation) {
        let id = UUID()
        // Slow readers skip to the newest events rather than growing a queue without bound.
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(64))
        state.withLockedValue { $0.subscribers[key, default: [:]][id] = Subscriber(role: role, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                state.subscribers[key]?[id] = nil
                if state.subscribers[key]?.isEmpty == true {
                    state.subscribers[key] = nil
                    state.lastFollowerEvent[key] = nil
                }
            }
        }
        return (stream, continuation)
    }

    /// The show may have changed: read it and send it (once at a time per show; a change that
    /// arrives meanwhile triggers one more read).
    func changed(project: String, beaconName: String) {
        let key = Key(project: project, beaconName: beaconName)
        let refresh: (@Sendable (Key) async -> Void)? = state.withLockedValue { state in
            guard state.subscribers[key] != nil, let refresh = state.refresh else { return nil }
            if state.refreshing.contains(key) {
                state.refreshAgain.insert(key)
                return nil
            }
            state.refreshing.insert(key)
            return refresh
        }
        guard let refresh else { return }
        Task {
            while true {
                await refresh(key)
                let again = state.withLockedValue { state -> Bool in
                    if state.refreshAgain.remove(key) != nil { return true }
                    state.refreshing.remove(key)
                    return false
                }
                if !again { break }
            }
        }
    }

    /// After a gap in notifications: every show with a stream here is read again.
    func changedAll() {
        let keys = state.withLockedValue { Array($0.subscribers.keys) }
        for key in keys { changed(project: key.project, beaconName: key.beaconName) }
    }

    /// Sends a show's state: `follower` to followers (skipped when it is what they last got),
    /// `presenter` to presenters.
    func send(_ key: Key, follower: ByteBuffer, presenter: ByteBuffer) {
        let targets = state.withLockedValue { state -> [(Subscriber, ByteBuffer)] in
            let sendFollowers = state.lastFollowerEvent[key] != follower
            state.lastFollowerEvent[key] = follower
            return (state.subscribers[key] ?? [:]).values.compactMap { subscriber in
                switch subscriber.role {
                case .presenter: return (subscriber, presenter)
                case .follower: return sendFollowers ? (subscriber, follower) : nil
                }
            }
        }
        for (subscriber, bytes) in targets { subscriber.continuation.yield(bytes) }
    }

    /// Sends bytes to a show's presenters only (reaction batches).
    func sendToPresenters(_ key: Key, _ bytes: ByteBuffer) {
        let targets = state.withLockedValue { ($0.subscribers[key] ?? [:]).values.filter { $0.role == .presenter } }
        for subscriber in targets { subscriber.continuation.yield(bytes) }
    }

    /// The show ended: `event: ended` to everyone, and the streams close.
    func end(_ key: Key) {
        let targets = state.withLockedValue { state -> [Subscriber] in
            state.lastFollowerEvent[key] = nil
            return Array((state.subscribers[key] ?? [:]).values)
        }
        for subscriber in targets {
            subscriber.continuation.yield(ByteBuffer(string: "event: ended\ndata: {}\n\n"))
            subscriber.continuation.finish()
        }
    }

    /// A comment line on every stream, so proxies keep idle streams open.
    func keepAlive() {
        let targets = state.withLockedValue { $0.subscribers.values.flatMap { $0.values } }
        let bytes = ByteBuffer(string: ": keep-alive\n\n")
        for subscriber in targets { subscriber.continuation.yield(bytes) }
    }

    /// Ends every stream (shutdown).
    func finishAll() {
        let targets = state.withLockedValue { $0.subscribers.values.flatMap { $0.values } }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// An SSE event.
    static func event(_ name: String, json: Data) -> ByteBuffer {
        ByteBuffer(string: "event: \(name)\ndata: " + String(decoding: json, as: UTF8.self) + "\n\n")
    }
}
