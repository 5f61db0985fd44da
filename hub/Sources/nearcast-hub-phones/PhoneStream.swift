import NIOCore

/// A phone's show stream: each `show` event's page is recorded with its arrival (the first at each
/// page is the page turn reaching this phone); `revoked` and `ended` are counted; a new page's
/// image is loaded when the phones load them; a lost stream is opened again as EventSource does
/// (a refused one is not).
struct PhoneStreamListener: EventStreamListener {
    let grant: PhoneGrant
    let bench: BenchContext

    func opened(status: Int, message: String) {
        guard status != 200 else { return }
        bench.recorder.refused("the show's events", status: status, message: message.isEmpty ? nil : String(message.prefix(120)), phone: grant.index)
    }

    func received(_ event: ServerSentEvent, arrivalNs: UInt64) {
        switch event.name {
        case "show":
            guard let show = bench.decodeShow(event.data) else { return }
            var first = false
            bench.recorder.phone(grant.index) { phone in
                if phone.followingNs == nil { phone.followingNs = arrivalNs }
                if phone.pages[show.page] == nil {
                    phone.pages[show.page] = arrivalNs
                    first = true
                }
            }
            if first && bench.options.images {
                let (grant, bench) = (grant, bench)
                Task { await PageImage.load(show, for: grant, bench: bench) }
            }
        case "revoked":
            bench.recorder.phone(grant.index) { $0.revoked += 1 }
        case "ended":
            bench.recorder.phone(grant.index) { $0.ended += 1 }
        default:
            break
        }
    }

    func closed(status: Int) {
        // Refused (opened() recorded the status): an EventSource gives up for good on an answer
        // other than 200, and the page stops following.
        guard !bench.isStopping, status == 0 || status == 200 else { return }
        if status == 200 { bench.recorder.phone(grant.index) { $0.streamsLost += 1; $0.lostNs = Clocks.monotonicNs() } }
        guard bench.options.reconnect else { return }
        let (grant, bench) = (grant, bench)
        Task { await Self.reopen(grant, bench: bench) }
    }

    /// Opens the stream again as EventSource does: after its reconnection time (Chromium's 3 s;
    /// the hub sends no `retry:`), and again after the same wait while the connection cannot be
    /// made. Every phone of a lost instance comes back at the same moment, as real phones would.
    static func reopen(_ grant: PhoneGrant, bench: BenchContext) async {
        while !bench.isStopping {
            try? await Task.sleep(for: .milliseconds(Int(bench.options.retrySeconds * 1000)))
            guard !bench.isStopping else { return }
            bench.recorder.update { $0.reconnects += 1 }
            if await PhoneLife(index: grant.index, kind: grant.kind, bench: bench).follow(grant) { return }
        }
    }
}

/// A page's image, loaded as the page loads it when a `show` event brings a page it has not shown
/// (`GET /v1/decks/DECK/pages/N?key=…&token=…&phone=…`), on a connection of its own.
enum PageImage {
    static func load(_ show: ShowSummary, for grant: PhoneGrant, bench: BenchContext) async {
        let connection: HTTPConnection
        do {
            connection = try await HTTPConnection.connect(to: bench.entry(of: grant.index), from: bench.source(of: grant.index), group: bench.group)
        } catch {
            bench.recorder.update { $0.imageFailures[ConnectionFailure.from(error).reason, default: 0] += 1 }
            return
        }
        defer { connection.close() }
        do {
            let answer = try await connection.send(.GET, "/v1/decks/\(show.deck)/pages/\(show.page)?\(grant.query)")
            let loaded = Clocks.monotonicNs()
            if answer.status == 200 {
                bench.recorder.phone(grant.index) { $0.images[show.page] = loaded }
            } else {
                bench.recorder.update { $0.imageFailures["HTTP \(answer.status)", default: 0] += 1 }
            }
        } catch {
            bench.recorder.update { $0.imageFailures[ConnectionFailure.from(error).reason, default: 0] += 1 }
        }
    }
}
