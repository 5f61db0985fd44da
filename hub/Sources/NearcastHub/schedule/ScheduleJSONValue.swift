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

    /// Parses `data`, or says where it stops parsing: the line and column when the parser names them.
    static func parse(_ data: Data) throws(ScheduleImportError) -> ScheduleJSONValue {
        do {
            return try JSONDecoder().decode(ScheduleJSONValue.self, from: data)
        } catch {
            let detail = (error as? DecodingError).flatMap { error -> String? in
                if case .dataCorrupted(let context) = error {
                    return context.underlyingError.map { "\($0)" } ?? context.debugDescription
                }
                return nil
            } ?? "\(error)"
            throw ScheduleImportError(reason: .unreadable, location: location(in: detail, data: data),
                                      message: "not JSON that parses (truncated or malformed): \(summary(of: detail))")
        }
    }

    /// `line L, column C` when Foundation's message names them; else the file's last line when the
    /// message says the file ended (a truncated export), else the file.
    private static func location(in detail: String, data: Data) -> ScheduleLocation {
        func number(after word: String) -> Int? {
            guard let range = detail.range(of: word) else { return nil }
            return Int(detail[range.upperBound...].prefix { $0.isNumber })
        }
        if let line = number(after: "line "), let column = number(after: "column ") {
            return .lineColumn(line: line, column: column)
        }
        if detail.localizedCaseInsensitiveContains("end of file") || detail.localizedCaseInsensitiveContains("unexpected end") {
            return .line(data.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        }
        return .file
    }

    /// Foundation's message without its error-domain boilerplate.
    private static func summary(of detail: String) -> String {
        if let range = detail.range(of: "NSDebugDescription=") {
            return String(detail[range.upperBound...].prefix { $0 != "," && $0 != "}" && $0 != ")" })
        }
        return String(detail.prefix(200))
    }
}
