import NIOConcurrencyHelpers

/// The phones that earned an id by hearing each show (`PhoneIDs.Phone.identity`: one a
/// challenge), in memory (`MemoryVenueRepository`; the database keeps the venue's in
/// `show_phones`). The presenter's cap on joining by code is a share of them: each cost a
/// challenge's work, unlike open streams, which one pass could open by the hundred. A show
/// started anew on a box counts from none.
final class ShowPhones: Sendable {
    private struct Entry {
        var startedMs: Int64
        var heard: Set<String> = []
    }

    private let table = NIOLockedValueBox([BeaconRef: Entry]())

    /// `identity` earned an id by hearing the show on `key` started at `startedMs`.
    func record(_ key: BeaconRef, startedMs: Int64, identity: String) {
        table.withLockedValue { table in
            var entry = table[key].flatMap { $0.startedMs == startedMs ? $0 : nil } ?? Entry(startedMs: startedMs)
            entry.heard.insert(identity)
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
