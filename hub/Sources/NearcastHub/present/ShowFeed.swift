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

    /// Who holds a stream.
    enum Role: Sendable {
        case follower
        case presenter
    }

    /// A class, not a struct: a page turn lists every stream of its show under the lock, and
    /// copying a reference is one retain where a struct's copy retains each of its fields.
    private final class Subscriber: Sendable {
        let role: Role
        /// The pass the stream was opened with: it ends when its show revokes it. Nil for a
        /// key's stream.
        let pass: Presence.Pass?
        /// When the pass or watch token the stream was opened with expires: it ends then. Nil
        /// for the secret key's stream.
        let expiresMs: Int64?
        let continuation: AsyncStream<ByteBuffer>.Continuation
        /// Its show's count of sends to this role when it subscribed (see `sendFirst`).
        let subscribedAfterSends: UInt64

        init(role: Role, pass: Presence.Pass?, expiresMs: Int64?, continuation: AsyncStream<ByteBuffer>.Continuation,
             subscribedAfterSends: UInt64) {
            self.role = role
            self.pass = pass
            self.expiresMs = expiresMs
            self.continuation = continuation
            self.subscribedAfterSends = subscribedAfterSends
        }
    }

    /// One open stream, as `subscribe` gives it: its events; its first event goes through
    /// `sendFirst`; `continuation.finish()` ends it.
    struct Subscription: Sendable {
        let events: AsyncStream<ByteBuffer>
        let continuation: AsyncStream<ByteBuffer>.Continuation
        fileprivate let key: BeaconRef
        fileprivate let id: UUID
    }

    /// Per show: how many sends reached its followers, and its presenters.
    private struct Sends {
        var followers: UInt64 = 0
        var presenters: UInt64 = 0

        subscript(role: Role) -> UInt64 {
            get { role == .follower ? followers : presenters }
            set { if role == .follower { followers = newValue } else { presenters = newValue } }
        }
    }

    private struct State {
        var subscribers: [BeaconRef: [UUID: Subscriber]] = [:]
        /// What every follower of a show was last sent (by `send` or `sendFirst`), to skip
        /// sending the same again; nil when they may differ.
        var lastFollowerEvent: [BeaconRef: ByteBuffer] = [:]
        var sends: [BeaconRef: Sends] = [:]
        var refresh: (@Sendable (BeaconRef) async -> Void)?
        /// Told of every change to any show, streams or not (`ShowCache` forgets it); nil: all.
        var onChange: (@Sendable (BeaconRef?) -> Void)?
        var refreshing: Set<BeaconRef> = []
        var refreshAgain: Set<BeaconRef> = []
        /// The reads running now, one a show at most: `stop()` waits for them.
        var reads: [BeaconRef: Task<Void, Never>] = [:]
        /// Set by `stop()`: no read starts after it.
        var stopped = false
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// What reads a show and sends it (`HubServices` installs it).
    func setRefresh(_ refresh: @escaping @Sendable (BeaconRef) async -> Void) {
        state.withLockedValue { $0.refresh = refresh }
    }

    /// What hears of every change to any show, whether this instance streams it or not.
    func setOnChange(_ onChange: @escaping @Sendable (BeaconRef?) -> Void) {
        state.withLockedValue { $0.onChange = onChange }
    }

    /// Open streams, by role.
    var followerCount: Int { count(.follower) }
    var presenterCount: Int { count(.presenter) }

    private func count(_ role: Role) -> Int {
        state.withLockedValue { $0.subscribers.values.reduce(0) { $0 + $1.values.filter { $0.role == role }.count } }
    }

    /// Followers per show on this instance.
    func followersByShow() -> [BeaconRef: Int] {
        state.withLockedValue { state in
            state.subscribers.mapValues { $0.values.filter { $0.role == .follower }.count }
        }
    }

    /// A stream for one show; it ends when the consumer stops reading or the show ends. The
    /// caller reads the show after subscribing and gives the stream that first event with
    /// `sendFirst` (so no change falls between the two).
    func subscribe(_ key: BeaconRef, role: Role, pass: Presence.Pass? = nil, expiresMs: Int64? = nil) -> Subscription {
        let id = UUID()
        // Slow readers skip to the newest events rather than growing a queue without bound.
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(64))
        state.withLockedValue { state in
            state.subscribers[key, default: [:]][id] = Subscriber(role: role, pass: pass, expiresMs: expiresMs ?? pass?.expiresMs,
                                                                  continuation: continuation,
                                                                  subscribedAfterSends: state.sends[key, default: Sends()][role])
            // A read of the show running now may have begun before this stream's own read: one
            // more after it, so the stream ends on the show as it is.
            if state.refreshing.contains(key) { state.refreshAgain.insert(key) }
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                state.subscribers[key]?[id] = nil
                if state.subscribers[key]?.isEmpty == true {
                    state.subscribers[key] = nil
                    state.lastFollowerEvent[key] = nil
                    state.sends[key] = nil
                }
            }
        }
        return Subscription(events: stream, continuation: continuation, key: key, id: id)
    }

    /// A stream's first event: the show as the stream's own read (after subscribing) found it.
    /// Skipped when a send has reached the stream since it subscribed (that came from a read
    /// at least as new; the stream would otherwise end on the older one). When it differs from
    /// what the other followers were last sent (the show changed while it had no stream here,
    /// so no send told them, or a send is on its way), the next send goes to every follower:
    /// skipping it as "the same again" would leave this stream behind, on a page the show has
    /// left.
    func sendFirst(_ subscription: Subscription, _ event: ByteBuffer) {
        let key = subscription.key
        state.withLockedValue { state in
            guard let subscriber = state.subscribers[key]?[subscription.id],
                  state.sends[key, default: Sends()][subscriber.role] == subscriber.subscribedAfterSends else { return }
            if subscriber.role == .follower, state.lastFollowerEvent[key] != event { state.lastFollowerEvent[key] = nil }
            subscriber.continuation.yield(event)
        }
    }

    /// The show may have changed: read it and send it (once at a time per show; a change that
    /// arrives meanwhile triggers one more read).
    package func changed(_ key: BeaconRef) {
        state.withLockedValue { $0.onChange }?(key)
        let refresh: (@Sendable (BeaconRef) async -> Void)? = state.withLockedValue { state in
            guard !state.stopped, state.subscribers[key] != nil, let refresh = state.refresh else { return nil }
            if state.refreshing.contains(key) {
                state.refreshAgain.insert(key)
                return nil
            }
            state.refreshing.insert(key)
            return refresh
        }
        guard let refresh else { return }
        let box = state
        let read = Task {
            while true {
                await refresh(key)
                let again = box.withLockedValue { state -> Bool in
                    if !state.stopped, state.refreshAgain.remove(key) != nil { return true }
                    state.refreshing.remove(key)
                    state.reads[key] = nil
                    return false
                }
                if !again { break }
            }
        }
        // Kept while it runs (not if it has already finished), so `stop()` can wait for it.
        state.withLockedValue { state in
            if state.refreshing.contains(key) { state.reads[key] = read }
        }
    }

    /// No read of a show starts from now on, and the ones running are waited for: the storage
    /// can be closed after it (a read on a closed SQLite connection is a use after free).
    func stop() async {
        let running = state.withLockedValue { state -> [Task<Void, Never>] in
            state.stopped = true
            return Array(state.reads.values)
        }
        for read in running { await read.value }
    }

    /// After a gap in notifications: every show with a stream here is read again.
    package func changedAll() {
        state.withLockedValue { $0.onChange }?(nil)
        let keys = state.withLockedValue { Array($0.subscribers.keys) }
        for key in keys { changed(key) }
    }

    /// Sends a show's state: `follower` to followers (skipped when it is what they last got),
    /// `presenter` to presenters.
    func send(_ key: BeaconRef, follower: ByteBuffer, presenter: ByteBuffer) {
        // Two lists of streams, one ByteBuffer each: a page turn reaches thousands of followers.
        let (followers, presenters) = state.withLockedValue { state -> ([Subscriber], [Subscriber]) in
            var followers: [Subscriber] = [], presenters: [Subscriber] = []
            // No stream, nothing sent: a stream that opens later gets its first event from its own read.
            guard let subscribers = state.subscribers[key] else { return (followers, presenters) }
            let sendFollowers = state.lastFollowerEvent[key] != follower
            state.lastFollowerEvent[key] = follower
            state.sends[key, default: Sends()].presenters &+= 1
            if sendFollowers { state.sends[key, default: Sends()].followers &+= 1 }
            if sendFollowers { followers.reserveCapacity(subscribers.count) }
            for subscriber in subscribers.values {
                switch subscriber.role {
                case .presenter: presenters.append(subscriber)
                case .follower: if sendFollowers { followers.append(subscriber) }
                }
            }
            return (followers, presenters)
        }
        for subscriber in followers { subscriber.continuation.yield(follower) }
        for subscriber in presenters { subscriber.continuation.yield(presenter) }
    }

    /// Sends bytes to a show's presenters only (reaction batches).
    package func sendToPresenters(_ key: BeaconRef, _ bytes: ByteBuffer) {
        let targets = state.withLockedValue { ($0.subscribers[key] ?? [:]).values.filter { $0.role == .presenter } }
        for subscriber in targets { subscriber.continuation.yield(bytes) }
    }

    /// The show ended: `event: ended` to everyone, and the streams close.
    func end(_ key: BeaconRef) {
        let targets = state.withLockedValue { state -> [Subscriber] in
            state.lastFollowerEvent[key] = nil
            return Array((state.subscribers[key] ?? [:]).values)
        }
        for subscriber in targets {
            subscriber.continuation.yield(ByteBuffer(string: "event: ended\ndata: {}\n\n"))
            subscriber.continuation.finish()
        }
    }

    /// Ends the streams of `key` opened with a pass that `show` (the show now) no longer stands
    /// by: another show, a new code, joining by code turned off. Each gets `event: revoked`
    /// first, so its page renews the pass (by hearing, or the code) and follows again.
    func revokePasses(_ key: BeaconRef, show: Show) {
        let standing = Presence.ShowStanding(show)
        let revoked = state.withLockedValue { state -> [Subscriber] in
            let gone = (state.subscribers[key] ?? [:]).filter { _, subscriber in
                guard let binding = subscriber.pass?.show else { return false }
                return !binding.holds(against: standing)
            }
            for id in gone.keys { state.subscribers[key]?[id] = nil }
            return Array(gone.values)
        }
        for subscriber in revoked {
            subscriber.continuation.yield(Self.revokedEvent("the pass no longer holds for this show (a new show, a new code, or joining by code turned off): "
                                                            + "hear the box or type the code on the screen to follow again"))
            subscriber.continuation.finish()
        }
    }

    /// A comment line on every stream, so proxies keep idle streams open; a stream whose pass
    /// or watch token has expired ends instead (`event: revoked`).
    func keepAlive(nowMs: Int64) {
        let (alive, expired) = state.withLockedValue { state -> ([Subscriber], [Subscriber]) in
            var alive: [Subscriber] = [], expired: [Subscriber] = []
            for (key, subscribers) in state.subscribers {
                for (id, subscriber) in subscribers {
                    if let expiresMs = subscriber.expiresMs, expiresMs <= nowMs {
                        expired.append(subscriber)
                        state.subscribers[key]?[id] = nil
                    } else {
                        alive.append(subscriber)
                    }
                }
            }
            return (alive, expired)
        }
        let bytes = ByteBuffer(string: ": keep-alive\n\n")
        for subscriber in alive { subscriber.continuation.yield(bytes) }
        for subscriber in expired {
            subscriber.continuation.yield(Self.revokedEvent(subscriber.pass == nil
                                                            ? "the watch token has expired: resolve the box again (hear it) to follow again"
                                                            : "the pass has expired: hear the box or type the code on the screen to follow again"))
            subscriber.continuation.finish()
        }
    }

    private static func revokedEvent(_ message: String) -> ByteBuffer {
        event("revoked", json: (try? JSONText.encode(["message": message])) ?? Data("{}".utf8))
    }

    /// Ends every stream (shutdown).
    package func finishAll() {
        let targets = state.withLockedValue { $0.subscribers.values.flatMap { $0.values } }
        for subscriber in targets { subscriber.continuation.finish() }
    }

    /// An SSE event.
    package static func event(_ name: String, json: Data) -> ByteBuffer {
        ByteBuffer(string: "event: \(name)\ndata: " + String(decoding: json, as: UTF8.self) + "\n\n")
    }
}

extension ShowFeed {
    /// A batch of reactions to this instance's presenters of the show.
    package func sendReactions(_ key: BeaconRef, _ batch: ReactionBatchJSON) throws {
        sendToPresenters(key, Self.event("reactions", json: try JSONText.encode(batch)))
    }
}
