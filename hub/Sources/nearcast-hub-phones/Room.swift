#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The room the phones join, as the runner set it up (tools/bench/phones writes it: a project, a
/// box registered with its EID identity, a deck, a show on the box): where to connect, the keys,
/// the show, what the box broadcasts when, and the processes to measure.
///
/// ```json
/// {"entries": ["127.0.0.1:8080"],
///  "instances": [{"name": "hub 1", "address": "127.0.0.1:40001", "pid": 1234}],
///  "helpers": [{"name": "haproxy", "pid": 1240}],
///  "publicKey": "ncpub_…", "secretKey": "ncsec_…", "beacon": "4!0a1b…", "deck": "…", "pages": 21,
///  "eids": [{"fromMs": 1732800000000, "id": "BASE64"}], "workBits": 8}
/// ```
struct Room: Decodable, Sendable {
    /// A hub instance: its own address (for `/metrics`, not through the balancer) and process.
    struct Instance: Decodable, Sendable {
        var name: String
        var address: String
        var pid: Int32
    }

    /// Another process whose CPU the report shows (the balancer, PostgreSQL's server).
    struct Helper: Decodable, Sendable {
        var name: String
        var pid: Int32
        /// Count the processes it started too (PostgreSQL's postmaster: each connection's backend).
        var children: Bool?
    }

    /// The box's EID from `fromMs` (milliseconds since 1970) until the next one's: what a phone in
    /// the room hears then. The runner computes them (the Eddystone-EID maths are hubtest's), so
    /// this tool needs no AES.
    struct BroadcastEID: Decodable, Sendable {
        var fromMs: Double
        var id: String
    }

    /// Where the phones connect, each phone to one in turn: the balancers (one HAProxy process holds
    /// about as many phones as half its descriptors), or the one hub. The presenter uses the first.
    var entries: [String]
    var instances: [Instance]
    var helpers: [Helper] = []
    var publicKey: String
    var secretKey: String
    /// `4!HEX`, as in `beacons/4!HEX`.
    var beacon: String
    var deck: String
    var pages: Int
    var eids: [BroadcastEID]
    /// The work a phone id costs on these hubs (their `limits.phoneIdWorkBits`): for the report;
    /// the challenge itself says what to do.
    var workBits: Int?

    static func load(_ path: String) throws(UsageError) -> Room {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(path): cannot read the room file") }
        let room: Room
        do {
            room = try JSONDecoder().decode(Room.self, from: data)
        } catch {
            throw UsageError("\(path): not a room: \(error)")
        }
        guard !room.entries.isEmpty else { throw UsageError("\(path): entries is empty (nowhere to connect)") }
        guard !room.eids.isEmpty else { throw UsageError("\(path): eids is empty (the box broadcasts nothing)") }
        guard room.pages >= 2 else { throw UsageError("\(path): pages is \(room.pages); a page turn needs at least 2") }
        return room
    }

    /// What a phone hears now: the box's EID at this moment (base64).
    func eidNow() -> String {
        let now = Clocks.wallMs()
        return (eids.last { $0.fromMs <= now } ?? eids[0]).id
    }
}

/// A command line or a file that makes no sense, in words that name what and where.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
