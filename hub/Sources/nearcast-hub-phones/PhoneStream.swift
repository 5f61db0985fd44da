import NIOCore

/// A phone's show stream: each `show` event's page is recorded with its arrival (the first at each
/// page is the page turn reaching this phone); `revoked` and `ended` are counted; a new page's
/// image is loaded when the phones load them; a lost stream is opened again as EventSource does.
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

    func closed() {
        guard !bench.isStopping else { return }
        bench.recorder.phone(grant.index) { $0.streamsLost += 1 }
        guard bench.options.reconnect else { return }
        let (grant, bench) = (grant, bench)
        Task {
            // EventSource's retry: about 3 s in browsers; spread so a lost instance's phones do
            // not all come back in the same millisecond.
            try? await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000)))
            guard !bench.isStopping else { return }
            bench.recorder.update { $0.reconnects += 1 }
            await PhoneLife(index: grant.index, kind: grant.kind, bench: bench).follow(grant)
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
