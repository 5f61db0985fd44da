import NearcastCore

/// A JSON5 value with the place it was written, so that validation errors can say
/// `boards/rpi4b.json5:12:14: leds.status.line: ...`.
///
/// Board and config files are JSON5 (comments, unquoted keys, trailing commas, single quotes,
/// hex numbers), parsed here without Foundation: the full JSONDecoder would cost megabytes of
/// binary, and its errors cannot name a line.
public indirect enum JSON5Value: Equatable, Sendable {
    case object([(key: String, value: JSON5Node)])
    case array([JSON5Node])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    public static func == (lhs: JSON5Value, rhs: JSON5Value) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// A short name of the value's type, for messages.
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// A value and where it starts in the text (1-based line and column).
public struct JSON5Node: Equatable, Sendable {
    public var value: JSON5Value
    public var line: Int
    public var column: Int
}

/// A syntax error with its position.
public struct JSON5SyntaxError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
}

/// Parses JSON5 text.
public struct JSON5Parser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0
    /// Nesting deeper than this is refused (a hostile file cannot exhaust the stack).
    public static let maximumDepth = 64

    public static func parse(_ text: String) throws(JSON5SyntaxError) -> JSON5Node {
        var parser = JSON5Parser(bytes: Array(text.utf8))
        try parser.skipTriviaChecked()
        let node = try parser.parseValue()
        try parser.skipTriviaChecked()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the value") }
        return node
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> JSON5SyntaxError {
        JSON5SyntaxError(line: line, column: column, message: message)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if bytes[index] & 0xC0 != 0x80 {
            column += 1     // count characters, not UTF-8 continuation bytes
        }
        index += 1
    }

    private mutating func skipTriviaChecked() throws(JSON5SyntaxError) {
        while let c = current {
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                advance()
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while let c = current, c != UInt8(ascii: "\n") { _ = c; advance() }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = error("unterminated /* comment")
                advance(); advance()
                while true {
                    guard let c = current else { throw start }
                    if c == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/") {
                        advance(); advance()
                        break
                    }
                    advance()
                }
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(JSON5SyntaxError) -> JSON5Node {
        let startLine = line, startColumn = column
        guard let c = current else { throw error("unexpected end of file, expected a value") }
        let value: JSON5Value
        switch c {
        case UInt8(ascii: "{"): value = try parseObject()
        case UInt8(ascii: "["): value = try parseArray()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): value = .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            value = .number(try parseNumber())
        default:
            let wordStart = error("")
            let word = parseIdentifier()
            func at(_ message: String) -> JSON5SyntaxError {
                JSON5SyntaxError(line: wordStart.line, column: wordStart.column, message: message)
            }
            switch word {
            case "true": value = .bool(true)
            case "false": value = .bool(false)
            case "null": value = .null
            case "Infinity": value = .number(.infinity)
            case "NaN": value = .number(.nan)
            case "": throw at("unexpected character '\(Self.printable(c))', expected a value")
            default: throw at("unexpected word '\(word)', expected a value (strings need quotes)")
            }
        }
        return JSON5Node(value: value, line: startLine, column: startColumn)
    }

    private mutating func enter() throws(JSON5SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSON5SyntaxError) -> JSON5Value {
        try enter()
        defer { depth -= 1 }
        advance()   // {
        var members: [(key: String, value: JSON5Node)] = []
        while true {
            try skipTriviaChecked()
            guard let c = current else { throw error("unexpected end of file inside an object") }
            if c == UInt8(ascii: "}") { advance(); return .object(members) }
            let keyLine = line, keyColumn = column
            let key: String
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                key = try parseString()
            } else {
                key = parseIdentifier()
                if key.isEmpty { throw error("expected a key or '}', found '\(Self.printable(c))'") }
            }
            if members.contains(where: { $0.key == key }) {
                throw JSON5SyntaxError(line: keyLine, column: keyColumn, message: "duplicate key '\(key)'")
            }
            try skipTriviaChecked()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key '\(key)'") }
            advance()
            try skipTriviaChecked()
            let value = try parseValue()
            members.append((key, value))
            try skipTriviaChecked()
            guard let next = current else { throw error("unexpected end of file inside an object") }
            if next == UInt8(ascii: ",") { advance(); continue }
            if next == UInt8(ascii: "}") { advance(); return .object(members) }
            throw error("expected ',' or '}' after the value of '\(key)'")
        }
    }

    private mutating func parseArray() throws(JSON5SyntaxError) -> JSON5Value {
        try enter()
        defer { depth -= 1 }
        advance()   // [
        var items: [JSON5Node] = []
        while true {
            try skipTriviaChecked()
            guard let c = current else { throw error("unexpected end of file inside an array") }
            if c == UInt8(ascii: "]") { advance(); return .array(items) }
            items.append(try parseValue())
            try skipTriviaChecked()
            guard let next = current else { throw error("unexpected end of file inside an array") }
            if next == UInt8(ascii: ",") { advance(); continue }
            if next == UInt8(ascii: "]") { advance(); return .array(items) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func parseString() throws(JSON5SyntaxError) -> String {
        let quote = bytes[index]
        let start = error("unterminated string")
        advance()
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw start }
            if c == quote { advance(); break }
            if c == UInt8(ascii: "\n") { throw error("line break inside a string") }
            if c == UInt8(ascii: "\\") {
                advance()
                guard let e = current else { throw start }
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "0"): out.append(0)
                case UInt8(ascii: "\n"): break     // line continuation
                case UInt8(ascii: "u"):
                    var scalar: UInt32 = 0
                    for _ in 0..<4 {
                        advance()
                        guard let h = current, let v = Hex.digitValue(h) else { throw error("bad \\u escape") }
                        scalar = scalar << 4 | UInt32(v)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: out.append(e)       // \" \' \\ \/ and any other character stand for themselves
                }
                advance()
                continue
            }
            out.append(c)
            advance()
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func parseNumber() throws(JSON5SyntaxError) -> Double {
        var sign = 1.0
        if current == UInt8(ascii: "-") || current == UInt8(ascii: "+") {
            if current == UInt8(ascii: "-") { sign = -1 }
            advance()
        }
        let word = parseIdentifier(allowingDots: true)
        if word == "Infinity" { return sign * .infinity }
        if word == "NaN" { return .nan }
        if word.hasPrefix("0x") || word.hasPrefix("0X") {
            guard let value = UInt64(word.dropFirst(2), radix: 16) else { throw error("bad hex number '\(word)'") }
            return sign * Double(value)
        }
        var text = word
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasSuffix(".") { text += "0" }
        guard let value = Double(text), !text.isEmpty else { throw error("bad number '\(word)'") }
        return sign * value
    }

    /// Letters, digits, `_`, `$` (and `.`, `+`, `-` after an exponent, inside numbers).
    private mutating func parseIdentifier(allowingDots: Bool = false) -> String {
        var out: [UInt8] = []
        while let c = current {
            let isWord = (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
            let isNumberPart = allowingDots && (c == UInt8(ascii: ".")
                || ((c == UInt8(ascii: "+") || c == UInt8(ascii: "-")) && (out.last == UInt8(ascii: "e") || out.last == UInt8(ascii: "E"))
                    && !(out.first == UInt8(ascii: "0") && out.count > 1 && (out[1] == UInt8(ascii: "x") || out[1] == UInt8(ascii: "X")))))
            guard isWord || isNumberPart else { break }
            out.append(c)
            advance()
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }
}
