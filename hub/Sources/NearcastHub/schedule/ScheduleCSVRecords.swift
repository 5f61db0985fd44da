/// The records of a CSV file (RFC 4180: fields in double quotes may hold commas, line breaks and
/// doubled quotes), each with the line it starts on. A leading UTF-8 BOM is skipped (pretalx's own
/// CSV exports start with one, for Excel); `\r\n` and `\n` both end a record; blank lines, and
/// rows of empty fields as spreadsheets save them, are skipped. The separator is a comma, or a
/// semicolon when the header line has semicolons and no comma (what a spreadsheet in a German or
/// French locale saves).
struct ScheduleCSVRecords {
    struct Record: Sendable, Hashable {
        var line: Int
        var fields: [String]
    }

    var separator: UInt8
    var records: [Record]

    init(_ bytes: [UInt8]) throws(ScheduleImportError) {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        let headerEnd = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        let header = bytes[start..<headerEnd]
        separator = !header.contains(UInt8(ascii: ",")) && header.contains(UInt8(ascii: ";")) ? UInt8(ascii: ";") : UInt8(ascii: ",")
        records = []
        var line = 1
        var index = start
        var fields: [String] = []
        var field: [UInt8] = []
        var recordLine = 1
        var fieldWasQuoted = false

        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }
        func endRecord() {
            endField()
            if !fields.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) {
                records.append(Record(line: recordLine, fields: fields))
            }
            fields.removeAll()
        }

        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") && field.isEmpty && !fieldWasQuoted {
                // A quoted field: up to the closing quote, "" standing for one quote.
                let quoteLine = line
                index += 1
                var closed = false
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == UInt8(ascii: "\"") {
                        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                            field.append(inner)
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    if inner == UInt8(ascii: "\n") { line += 1 }
                    field.append(inner)
                    index += 1
                }
                guard closed else {
                    throw ScheduleImportError(reason: .unreadable, location: .line(quoteLine),
                                              message: "a quoted field is never closed (the file is truncated, or a quote is missing)")
                }
                fieldWasQuoted = true
                if index < bytes.count, bytes[index] != separator, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                    throw ScheduleImportError(reason: .unreadable, location: .line(line),
                                              message: "text after a closing quote: a quote inside a quoted field is written twice (\"\")")
                }
                continue
            }
            switch byte {
            case separator:
                endField()
            case UInt8(ascii: "\r") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n"):
                break
            case UInt8(ascii: "\n"):
                endRecord()
                line += 1
                recordLine = line
            default:
                field.append(byte)
            }
            index += 1
        }
        if !field.isEmpty || !fields.isEmpty || fieldWasQuoted { endRecord() }
    }
}
