/// fuzz: bytes (after 14 decision bytes: file size past the prefix, a format) into WAVFormat.parse; an accepted layout lies inside the file in whole frames exactly as the data chunk declares (cut at the file's end), parses the same from the prefix up to the samples, and header(dataBytes:) of the parsed and of a chosen format parses back to that format at offset 44
@testable import NearcastCore

/// Input: mode (1), extra file bytes (u32), encoding and channels (1), sample rate (u32),
/// data bytes for the canonical header (u32), then the file's first bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAVHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    func u32() -> Int { (0..<4).reduce(0) { value, shift in value | Int(input.byte()) << (8 * shift) } }
    let mode = input.byte()
    let extra = u32()
    let shape = input.byte()
    let rate = u32()
    let headerDataBytes = u32()
    let prefix = Array(input.rest())
    // The prefix is what a reader has of the file, so the file is at least that long.
    let fileSize: Int
    switch mode % 4 {
    case 0: fileSize = prefix.count
    case 1: fileSize = prefix.count + extra % 256
    case 2: fileSize = prefix.count + extra
    default: fileSize = prefix.count + extra * 1024    // beyond 4 GiB: a data size field cannot say that much
    }

    if let layout = try? WAVFormat.parse(prefix, fileSize: fileSize) {
        let format = layout.format
        require(format.channels >= 1 && format.sampleRate > 0, "accepted format \(format)")
        require(layout.dataOffset >= 20 && layout.dataOffset <= prefix.count,
                "data offset \(layout.dataOffset) outside the prefix of \(prefix.count) bytes")
        require(layout.dataBytes >= 0 && layout.dataOffset + layout.dataBytes <= fileSize,
                "samples \(layout.dataOffset)+\(layout.dataBytes) run past the file's \(fileSize) bytes")
        require(layout.dataBytes % format.bytesPerFrame == 0,
                "\(layout.dataBytes) data bytes are not whole frames of \(format.bytesPerFrame)")
        // The chunk header right before the samples says `data` and how much; all of it is read
        // when the file holds it, else what the file holds, in whole frames.
        let chunk = layout.dataOffset - 8
        require(Array(prefix[chunk..<chunk + 4]) == Array("data".utf8), "samples do not follow a data chunk header")
        let declared = (0..<4).reduce(0) { $0 | Int(prefix[chunk + 4 + $1]) << (8 * $1) }
        let expected = min(declared, fileSize - layout.dataOffset)
        require(layout.dataBytes == expected - expected % format.bytesPerFrame,
                "data chunk declares \(declared) bytes, file has \(fileSize - layout.dataOffset) after the header, read \(layout.dataBytes)")
        // The prefix only has to reach the samples.
        let short = try? WAVFormat.parse(Array(prefix[0..<layout.dataOffset]), fileSize: fileSize)
        require(short == layout, "the prefix cut at the samples parses to \(String(describing: short)), not \(layout)")
        // What Nearcast writes for this format (when a canonical header can say it) reads back.
        if format.channels * format.encoding.bytesPerSample <= Int(UInt16.max),
           format.sampleRate * format.bytesPerFrame <= Int(UInt32.max) {
            roundTrip(format, dataBytes: layout.dataBytes)
        }
    }

    // A chosen format, as the writers make them: pcm16 or float32, 1-8 channels, any rate whose
    // byte rate fits the header's 32 bits.
    let encoding: WAVFormat.Encoding = shape & 1 == 0 ? .pcm16 : .float32
    let channels = Int(shape >> 1) % 8 + 1
    let bytesPerFrame = encoding.bytesPerSample * channels
    let chosen = WAVFormat(encoding: encoding, sampleRate: 1 + rate % (Int(UInt32.max) / bytesPerFrame), channels: channels)
    roundTrip(chosen, dataBytes: headerDataBytes)
    return 0
}

/// header(dataBytes:) parses back to `format` at offset 44 with the samples that fit the file
/// (all of them, or fewer in a file cut short), in whole frames.
func roundTrip(_ format: WAVFormat, dataBytes: Int) {
    let header = format.header(dataBytes: dataBytes)
    require(header.count == WAVFormat.headerSize, "header of \(header.count) bytes")
    for fileSize in [44 + dataBytes, 44 + dataBytes / 2, 44] {
        let layout: WAVFormat.Layout
        do { layout = try WAVFormat.parse(header, fileSize: fileSize) } catch {
            fatalError("fuzz: the header written for \(format) (\(dataBytes) data bytes) does not parse: \(error)")
        }
        let whole = min(dataBytes, fileSize - 44)
        require(layout.format == format, "header of \(format) parses as \(layout.format)")
        require(layout.dataOffset == 44, "header of \(format) puts the samples at \(layout.dataOffset)")
        require(layout.dataBytes == whole - whole % format.bytesPerFrame,
                "header for \(dataBytes) bytes in a file of \(fileSize) reads \(layout.dataBytes)")
    }
}
