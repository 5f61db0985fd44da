import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document as a tree of elements, each with the line it starts on, read with Foundation's
/// `XMLParser` (libxml2 underneath, external entities not resolved). Small enough for a schedule:
/// a 500-talk export is about 1 MB.
final class ScheduleXMLElement {
    let name: String
    let attributes: [String: String]
    let line: Int
    var text = ""
    var children: [ScheduleXMLElement] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    /// The first child of that name.
    func child(_ name: String) -> ScheduleXMLElement? {
        children.first { $0.name == name }
    }

    func children(_ name: String) -> [ScheduleXMLElement] {
        children.filter { $0.name == name }
    }

    /// The text of the first child of that name, trimmed; nil when there is no such child.
    func childText(_ name: String) -> String? {
        child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Parses `data` into its root element, or says at which line and column the parser stopped.
    /// FoundationXML's `parse()` answers true for a truncated document or a mismatched tag, and only
    /// the delegate hears the error, so the first error the delegate hears decides.
    static func parse(_ data: Data) throws(ScheduleImportError) -> ScheduleXMLElement {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let error = builder.firstError ?? (parsed ? nil : Builder.Failure(code: (parser.parserError as? NSError)?.code ?? 0,
                                                                                 line: parser.lineNumber, column: parser.columnNumber)) {
            throw ScheduleImportError(reason: .unreadable, location: .lineColumn(line: max(error.line, 1), column: max(error.column, 1)),
                                      message: "not XML that parses (truncated or malformed): \(describe(code: error.code))")
        }
        guard let root = builder.root else {
            throw ScheduleImportError(reason: .unreadable, location: .file, message: "not XML that parses: no root element")
        }
        if let open = builder.stack.last {
            let lines = data.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            throw ScheduleImportError(reason: .unreadable, location: .line(lines),
                                      message: "not XML that parses (truncated or malformed): the file ends inside <\(open.name)> (line \(open.line))")
        }
        return root
    }

    /// libxml2's error codes (`xmlParserErrors`, which FoundationXML passes on as the error's code;
    /// its own `XMLParser.ErrorCode` numbers them otherwise on Linux) that schedule files meet, in words.
    static func describe(code: Int) -> String {
        switch code {
        case 3, 4: "there is no document"
        case 5: "the file ends early (truncated)"
        case 26: "an undeclared entity (&name;)"
        case 39, 40: "an attribute's quotes are not closed"
        case 73: "a tag is not closed (> expected)"
        case 76: "an end tag does not match its start tag"
        default: "libxml2 error \(code)"
        }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        struct Failure {
            var code: Int
            var line: Int
            var column: Int
        }

        var stack: [ScheduleXMLElement] = []
        var root: ScheduleXMLElement?
        var firstError: Failure?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String]) {
            let element = ScheduleXMLElement(name: elementName, attributes: attributes, line: parser.lineNumber)
            stack.last?.children.append(element)
            if stack.isEmpty, root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            stack.last?.text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if firstError == nil {
                firstError = Failure(code: (parseError as NSError).code, line: parser.lineNumber, column: parser.columnNumber)
            }
        }
    }
}
