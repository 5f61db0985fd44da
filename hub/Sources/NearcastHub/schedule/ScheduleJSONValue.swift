import Foundation

/// A JSON document as plain values, so the JSON reader can walk it and name each field by its path
/// (Codable's own errors name a path too, but stop at the first and know nothing of what a schedule
/// needs). Objects lose their key order, which no schedule field depends on.
enum ScheduleJSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ScheduleJSONValue])
    case object([String: ScheduleJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([ScheduleJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ScheduleJSONValue].self))
        }
    }

    /// What the value is, for messages: `a string`, `a number`, …
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses `data`, or says where it stops parsing: the line and column when Foundation names the
    /// place, the last line when the file ends early (a truncated export).
    static func parse(_ data: Data) throws(ScheduleImportError) -> ScheduleJSONValue {
        let decoded = Result { try JSONDecoder().decode(ScheduleJSONValue.self, from: data) }
        if case .success(let value) = decoded { return value }
        // JSONDecoder says only "not valid JSON"; JSONSerialization says where.
        let detail = serializationDetail(data) ?? "not valid JSON"
        throw ScheduleImportError(reason: .unreadable, location: location(in: detail, data: data),
                                  message: "not JSON that parses (truncated or malformed): \(detail)")
    }

    /// JSONSerialization's description of what is wrong with `data`, if it finds anything.
    private static func serializationDetail(_ data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let error = error as NSError
            return error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
        }
    }

    /// `character N` (a byte offset) as a line and column; the last line when the file ended early.
    private static func location(in detail: String, data: Data) -> ScheduleLocation {
        if let range = detail.range(of: "character "), let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }),
           offset <= data.count {
            let before = data.prefix(offset)
            let line = before.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
            return .lineColumn(line: line, column: offset - (lineStart - data.startIndex) + 1)
        }
        if detail.localizedCaseInsensitiveContains("end of file") {
            return .line(data.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        }
        return .file
    }
}
