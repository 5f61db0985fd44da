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
    static func parse(_ data: Data) throws(ScheduleImportError) -> ScheduleXMLElement {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = Builder(parser: parser)
        parser.delegate = builder
        let parsed = parser.parse()
        guard parsed, let root = builder.root else {
            let line = builder.errorLine ?? parser.lineNumber
            let column = builder.errorColumn ?? parser.columnNumber
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "no root element"
            throw ScheduleImportError(reason: .unreadable, location: .lineColumn(line: max(line, 1), column: max(column, 1)),
                                      message: "not XML that parses (truncated or malformed): \(reason)")
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        unowned let parser: XMLParser
        var stack: [ScheduleXMLElement] = []
        var root: ScheduleXMLElement?
        var errorLine: Int?
        var errorColumn: Int?

        init(parser: XMLParser) {
            self.parser = parser
        }

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
            if errorLine == nil {
                errorLine = parser.lineNumber
                errorColumn = parser.columnNumber
            }
        }
    }
}
