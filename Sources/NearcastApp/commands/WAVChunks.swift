import NearcastDrivers

/// The samples of a WAV file in chunks, as `decode` and `check` read them.
enum WAVChunks {
    /// Hands `reader`'s samples to `body` 4,096 at a time, to the file's end; a read error
    /// becomes a ``CommandFailure`` naming it.
    static func forEach(_ reader: WAVFileReader, _ body: (UnsafeBufferPointer<Float>) -> Void) throws {
        var chunk = [Float](repeating: 0, count: 4096)
        while true {
            let count: Int
            do {
                count = try chunk.withMutableBuffer { buffer throws(FileFormatError) in try reader.read(into: buffer) }
            } catch {
                throw CommandFailure("\(error)")
            }
            if count == 0 { return }
            chunk.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
        }
    }
}
