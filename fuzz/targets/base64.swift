/// fuzz: arbitrary text into Base64.decode; decoded bytes encode and decode back to themselves, and any bytes survive encode then decode
@testable import NearcastCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let bytes = Array(input.all)
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Base64.decode(text) {
        let again = Base64.encode(decoded)
        require(Base64.decode(again) == decoded, "decode(encode(decode(x))) differs for \(text.debugDescription)")
        // Canonical text (as encode writes it) is the only spelling accepted twice.
        require(Base64.encode(Base64.decode(again) ?? []) == again, "encode is not stable")
    }
    require(Base64.decode(Base64.encode(bytes)) == bytes, "encode then decode lost bytes")
    return 0
}
