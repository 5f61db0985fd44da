#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// A phone tapping reactions, as the page's buttons send them (`POST /v1/reactions` with its key,
/// its id in `X-Nearcast-Phone`, each tap's own `Idempotency-Key` (so HAProxy may send it to another
/// hub when its hub dies unanswered), the EID it hears or its pass as the proof), on a keep-alive
/// connection of its own, at random moments averaging `perSecond`, until `untilNs`. A 429 is
/// waited out as the page does (its `Retry-After`).
enum PhoneReactions {
    /// The hub's default choices.
    static let values = ["👏", "❤️", "😂", "😮", "🎉", "👍"]

    /// Every phone of `grants` tapping, each on its own, until `untilNs`.
    static func tapAll(_ grants: [PhoneGrant], perSecond: Double, untilNs: UInt64, bench: BenchContext) async {
        await withTaskGroup(of: Void.self) { group in
            for grant in grants {
                group.addTask { await tap(grant, perSecond: perSecond, untilNs: untilNs, bench: bench) }
            }
        }
    }

    static func tap(_ grant: PhoneGrant, perSecond: Double, untilNs: UInt64, bench: BenchContext) async {
        struct Body: Encodable { var observed: Observed; var reaction: String; var phone: String }
        // Each phone starts at a random point of its first interval, so a thousand phones do not tap together.
        var waitSeconds = Double.random(in: 0..<(1 / perSecond))
        var connection: HTTPConnection?
        defer { connection?.close() }
        while true {
            let now = Clocks.monotonicNs()
            guard now < untilNs else { return }
            // Not past the end: a long gap would keep the phase waiting for a tap never sent.
            if now + UInt64(waitSeconds * 1e9) >= untilNs { return }
            try? await Task.sleep(for: .milliseconds(Int(waitSeconds * 1000)))
            guard !bench.isStopping else { return }
            waitSeconds = -Glibc.log(Double.random(in: Double.ulpOfOne..<1)) / perSecond   // a Poisson process's gaps
            let value = values.randomElement()!
            // Each tap its own key, across the bench's phases too: the hub counts a key once per phone for ten minutes.
            let tapKey = String(UInt64.random(in: .min ... .max), radix: 16)
            let sentMs = Clocks.wallMs()
            var status = 0
            do {
                if connection == nil {
                    connection = try await HTTPConnection.connect(to: bench.entry(of: grant.index), from: bench.source(of: grant.index), group: bench.group)
                }
                let body = try JSONEncoder().encode(Body(observed: grant.observed(in: bench.room), reaction: value, phone: grant.phoneID))
                let answer = try await connection!.send(.POST, "/v1/reactions", headers: [("X-Api-Key", grant.key), ("X-Nearcast-Phone", grant.phoneID),
                                                                                         ("Idempotency-Key", tapKey)],
                                                        body: ByteBuffer(bytes: body))
                status = answer.status
                if status == 429, let retry = answer.headers.first(name: "Retry-After").flatMap(Double.init) {
                    waitSeconds = max(waitSeconds, retry)
                }
            } catch {
                connection?.close()
                connection = nil
                bench.recorder.update { $0.connectionErrors["POST reactions: \(ConnectionFailure.from(error).reason)", default: 0] += 1 }
            }
            let answeredMs = Clocks.wallMs()
            bench.recorder.update { $0.sent.append(.init(value: value, sentMs: sentMs, answeredMs: answeredMs, status: status)) }
        }
    }
}
