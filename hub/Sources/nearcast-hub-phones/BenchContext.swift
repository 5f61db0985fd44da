#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore

/// What every phone and the presenter share: the room, where to connect, the event loops, the
/// recorder, the code on the presenter's screen now, and whether the run is over.
final class BenchContext: Sendable {
    let room: Room
    /// Where phone i connects: `entries[i % count]`; the presenter: the first.
    let entries: [Endpoint]
    let group: any EventLoopGroup
    let recorder: Recorder
    let options: PhoneOptions
    /// The phones' source addresses, one per phone in turn (empty: the kernel's choice).
    let sources: [SocketAddress]
    /// The sight code the presenter's screen shows now (the presenter's stream keeps it).
    let code = NIOLockedValueBox<String?>(nil)
    let stopping = NIOLockedValueBox(false)
    /// The phones' open event streams, closed at the end.
    let streams = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    /// The last `show` event's data and what it said: every phone gets the same bytes at a turn,
    /// so one decode serves them all.
    private let lastShow = NIOLockedValueBox<(data: ByteBuffer, show: ShowSummary)?>(nil)

    init(room: Room, entries: [Endpoint], group: any EventLoopGroup, recorder: Recorder, options: PhoneOptions, sources: [SocketAddress]) {
        self.room = room
        self.entries = entries
        self.group = group
        self.recorder = recorder
        self.options = options
        self.sources = sources
    }

    var isStopping: Bool { stopping.withLockedValue { $0 } }

    /// The presenter's way in.
    var entry: Endpoint { entries[0] }

    func entry(of phone: Int) -> Endpoint { entries[phone % entries.count] }

    func source(of phone: Int) -> SocketAddress? {
        sources.isEmpty ? nil : sources[phone % sources.count]
    }

    /// A `show` event's deck and page.
    func decodeShow(_ data: ByteBuffer) -> ShowSummary? {
        if let last = lastShow.withLockedValue({ $0 }), last.data == data { return last.show }
        guard let show = try? JSONDecoder().decode(ShowSummary.self, from: Data(buffer: data)) else { return nil }
        lastShow.withLockedValue { $0 = (data, show) }
        return show
    }
}

/// What a phone does besides following, from the command line.
struct PhoneOptions: Sendable {
    /// Load each page's image when a `show` event brings it, as the page does.
    var images: Bool
    /// Open the stream again after it is lost, as EventSource does.
    var reconnect: Bool
    /// EventSource's reconnection time: seconds from a lost stream to opening it again.
    var retrySeconds: Double
}

/// A show as its `show` events carry it, the fields the phones need (the presenter's have more).
struct ShowSummary: Decodable, Sendable {
    var deck: String
    var page: Int
    var followers: Int?
    var code: String?
}

extension Data {
    init(buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { Data($0) }
    }
}

/// `text` for a URL's query: everything but the unreserved characters percent-encoded.
func queryEscaped(_ text: String) -> String {
    var escaped = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            escaped.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let digits = Array("0123456789ABCDEF".unicodeScalars)
            escaped.unicodeScalars.append("%")
            escaped.unicodeScalars.append(digits[Int(byte >> 4)])
            escaped.unicodeScalars.append(digits[Int(byte & 0xF)])
        }
    }
    return escaped
}

/// `text` with its `%XX` escapes decoded (a redirect's fragment); a broken escape is kept as it is.
func percentDecoded(_ text: String) -> String {
    var bytes: [UInt8] = []
    var input = Array(text.utf8)[...]
    while let byte = input.popFirst() {
        if byte == UInt8(ascii: "%"), input.count >= 2,
           let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16) {
            bytes.append(value)
            input = input.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
