/// fuzz: text into JSON5Parser.parse (the board and config files' reader); an error names a line and column inside the text, every value's position is where the value starts, and an accepted value printed back (compact JSON, or JSON5 with comments, bare keys, single quotes and trailing commas) parses to the same value
// fuzz-sources: Sources/NearcastApp/support/JSON5.swift
@testable import NearcastCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON5(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.all, as: UTF8.self)
    let node: JSON5Node
    do {
        node = try JSON5Parser.parse(text)
    } catch {
        let positions = Positions(text)
        require(positions.offset(line: error.line, column: error.column) != nil,
                "error \(error) names a place outside the text \(text.debugDescription)")
        return 0
    }
    checkPositions(node, in: Positions(text), text)
    for style in [Printer.Style.json, .json5] {
        var printer = Printer(style: style)
        printer.print(node.value)
        let printed = printer.out
        let again: JSON5Node
        do { again = try JSON5Parser.parse(printed) } catch {
            fatalError("fuzz: the \(style) print of \(text.debugDescription) does not parse: \(error)\n\(printed)")
        }
        require(same(node.value, again.value), "the \(style) print of \(text.debugDescription) parses differently:\n\(printed)")
        checkPositions(again, in: Positions(printed), printed)
    }
    return 0
}

/// Line and column (as the parser counts them: lines after `\n`, columns in characters, 1-based)
/// to byte offsets; the place just after a line's last character counts as inside.
struct Positions {
    var lineStarts: [Int] = [0]
    let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
        for (index, byte) in bytes.enumerated() where byte == 0x0A { lineStarts.append(index + 1) }
    }

    func offset(line: Int, column: Int) -> Int? {
        guard line >= 1 && line <= lineStarts.count && column >= 1 else { return nil }
        var offset = lineStarts[line - 1]
        var characters = 1
        while characters < column {
            guard offset < bytes.count && bytes[offset] != 0x0A else { return nil }
            offset += 1
            while offset < bytes.count && bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            characters += 1
        }
        return offset
    }
}

/// Every node's line and column is the first character of its value.
func checkPositions(_ node: JSON5Node, in positions: Positions, _ text: String) {
    guard let offset = positions.offset(line: node.line, column: node.column), offset < positions.bytes.count else {
        fatalError("fuzz: a value at \(node.line):\(node.column), outside \(text.debugDescription)")
    }
    let first = positions.bytes[offset]
    let starts: [UInt8]
    switch node.value {
    case .object: starts = Array("{".utf8)
    case .array: starts = Array("[".utf8)
    case .string: starts = Array("\"'".utf8)
    case .number: starts = Array("+-.0123456789IN".utf8)
    case .bool: starts = Array("tf".utf8)
    case .null: starts = Array("n".utf8)
    }
    require(starts.contains(first), "\(node.value.typeName) at \(node.line):\(node.column) starts with byte \(first) in \(text.debugDescription)")
    switch node.value {
    case .object(let members): for member in members { checkPositions(member.value, in: positions, text) }
    case .array(let items): for item in items { checkPositions(item, in: positions, text) }
    default: break
    }
}

/// The same value, positions aside: strings byte for byte, numbers bit for bit (any NaN).
func same(_ a: JSON5Value, _ b: JSON5Value) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { Array($0.key.utf8) == Array($1.key.utf8) && same($0.value.value, $1.value.value) }
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0.value, $1.value) }
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    case (.bool(let x), .bool(let y)): return x == y
    case (.null, .null): return true
    default: return false
    }
}

/// Writes a value as text: JSON (double quotes, quoted keys), or JSON5 as people write board
/// files (comments, bare keys where they can be, single quotes, trailing commas, line breaks).
struct Printer {
    enum Style { case json, json5 }
    let style: Style
    var out = ""
    private var depth = 0

    init(style: Style) { self.style = style }

    mutating func print(_ value: JSON5Value) {
        switch value {
        case .object(let members):
            out += "{"
            depth += 1
            for (index, member) in members.enumerated() {
                if style == .json5 {
                    newline()
                    if index == 0 { out += "// \(members.count) keys"; newline() }
                    key(member.key)
                    out += ": "
                } else {
                    if index > 0 { out += "," }
                    string(member.key, quote: "\"")
                    out += ":"
                }
                print(member.value.value)
                if style == .json5 { out += "," }
            }
            depth -= 1
            if style == .json5 && !members.isEmpty { newline() }
            out += "}"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if style == .json5 { out += index == 0 ? "/* \(items.count) */ " : " " } else if index > 0 { out += "," }
                print(item.value)
                if style == .json5 { out += "," }
            }
            out += "]"
        case .string(let text): string(text, quote: style == .json ? "\"" : "'")
        case .number(let number):
            if number.isNaN { out += "NaN" } else if number.isInfinite { out += number < 0 ? "-Infinity" : "Infinity" } else {
                out += "\(number)"
            }
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        }
    }

    private mutating func newline() {
        out += "\n" + String(repeating: "  ", count: depth)
    }

    private mutating func key(_ name: String) {
        let bare = !name.isEmpty && name.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x24
        }
        if bare { out += name } else { string(name, quote: "'") }
    }

    private mutating func string(_ text: String, quote: Character) {
        out.append(quote)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where Character(scalar) == quote: out += "\\" + String(quote)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append(quote)
    }
}
