/// fuzz: arbitrary text into StateRecord.decode (the state files' envelope); what it accepts re-encodes to a record that decodes to the same value and version
@testable import NearcastCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let kinds = ["identity", "pin", "clock", "settings"]
    let kind = kinds[Int(input.byte()) % kinds.count]
    let text = String(decoding: input.rest(), as: UTF8.self)
    if let (value, version) = try? StateRecord.decode(text, kind: kind, supported: 0...3) {
        require((0...3).contains(version), "version \(version) outside the supported range")
        let again = StateRecord.encode(kind: kind, version: version, value: value)
        guard let (value2, version2) = try? StateRecord.decode(again, kind: kind, supported: 0...3) else {
            fatalError("fuzz: a record StateRecord.encode wrote does not decode: \(again.debugDescription)")
        }
        require(value2 == value && version2 == version, "the round trip changed the record")
    }
    // Any one-line value encodes into a record that decodes back to it.
    let value = String(decoding: input.all.lazy.map { $0 == 0x0A ? 0x20 : $0 }, as: UTF8.self)
    let record = StateRecord.encode(kind: kind, version: 2, value: value)
    guard let (back, version) = try? StateRecord.decode(record, kind: kind, supported: 0...3) else {
        fatalError("fuzz: encode wrote a record decode refuses for value \(value.debugDescription)")
    }
    require(back == value && version == 2, "encode then decode changed the value")
    return 0
}
