import NIOConcurrencyHelpers

/// The phones that earned an id for each show on this instance (`PhoneIDs.Phone.identity`: one
/// a challenge), by how they proved presence. The presenter's cap on joining by code is a share
/// of the phones that heard the box and earned an id, each of which cost a challenge's work,
/// not of the open streams, which one pass could open by the hundred. In memory and per
/// instance, like `CodePassLedger`; a show started anew on a box counts from none.
final class ShowPhones: Sendable {
    private struct Entry {
        var startedMs: Int64
        var heard: Set<String> = []
        var seen: Set<String> = []
    }

    private let table = NIOLockedValueBox([BeaconRef: Entry]())

    /// `identity` earned an id for the show on `key` started at `startedMs`, by hearing the box
    /// or by a pass.
    func record(_ key: BeaconRef, startedMs: Int64, identity: String, heard: Bool) {
        table.withLockedValue { table in
            var entry = table[key].flatMap { $0.startedMs == startedMs ? $0 : nil } ?? Entry(startedMs: startedMs)
            if heard { entry.heard.insert(identity) } else { entry.seen.insert(identity) }
            table[key] = entry
        }
    }

    /// The phones that earned an id by hearing the show on `key` started at `startedMs`.
    func heard(_ key: BeaconRef, startedMs: Int64) -> Int {
        table.withLockedValue { table in
            guard let entry = table[key], entry.startedMs == startedMs else { return 0 }
            return entry.heard.count
        }
    }
}
