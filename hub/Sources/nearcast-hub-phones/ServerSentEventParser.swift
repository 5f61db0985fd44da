import NIOCore

/// One Server-Sent Event: its `event:` name ("message" when none) and its `data:` lines joined.
struct ServerSentEvent {
    var name: String
    var data: ByteBuffer
}

/// Server-Sent Events from a response body's bytes, pushed in chunks of any size (a chunk may end
/// mid-line): the WHATWG parsing rules the tool needs (`event:`, `data:`, comments, blank line
/// ends an event; CRLF or LF), nothing more (`id:` and `retry:` are read and dropped).
struct ServerSentEventParser {
    private var line = ByteBuffer()
    private var name: String?
    private var data: ByteBuffer?

    /// The events completed by `chunk`.
    mutating func feed(_ chunk: ByteBuffer) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        chunk.withUnsafeReadableBytes { bytes in
            var start = 0
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
                line.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                if let event = takeLine() { events.append(event) }
            }
            line.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        return events
    }

    /// Reads the complete line held in `line` (its LF taken off), and returns the event a blank
    /// line completes.
    private mutating func takeLine() -> ServerSentEvent? {
        defer { line.clear() }
        var view = line.readableBytesView
        if view.last == UInt8(ascii: "\r") { view = view.dropLast() }
        if view.isEmpty {
            defer { name = nil; data = nil }
            guard let data else { return nil }
            return ServerSentEvent(name: name ?? "message", data: data)
        }
        if view.first == UInt8(ascii: ":") { return nil }   // a comment: the keep-alive
        let colon = view.firstIndex(of: UInt8(ascii: ":")) ?? view.endIndex
        let field = view[view.startIndex..<colon]
        var value = colon < view.endIndex ? view[(colon + 1)...] : view[view.endIndex...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        if field.elementsEqual("data".utf8) {
            if data == nil {
                data = ByteBuffer(bytes: value)
            } else {
                data!.writeInteger(UInt8(ascii: "\n"))
                data!.writeBytes(value)
            }
        } else if field.elementsEqual("event".utf8) {
            name = String(decoding: value, as: UTF8.self)
        }
        return nil
    }
}
