import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses SVG text with Foundation's XMLParser: fails the test when it is not well-formed.
public final class SVGDocument: NSObject, XMLParserDelegate {
    public struct Element {
        public var name: String
        public var attributes: [String: String]
        public var text = ""
        /// `data-id`s of the enclosing `g` elements, outermost first.
        public var groups: [String] = []
    }

    public private(set) var elements: [Element] = []
    private var stack: [Int] = []
    private var groupIDs: [String?] = []
    public private(set) var error: String?

    public init(_ text: String) {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        if !parser.parse() {
            error = parser.parserError.map { "\($0)" } ?? "not well-formed"
        }
    }

    public func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append(Element(name: name, attributes: attributes, groups: groupIDs.compactMap { $0 }))
        stack.append(elements.count - 1)
        groupIDs.append(name == "g" ? attributes["data-id"] : nil)
    }

    public func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
        groupIDs.removeLast()
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = stack.last { elements[i].text += string }
    }

    public var root: Element? { elements.first }

    /// The `rect.box` of each view, by `data-id`.
    public var boxes: [String: Element] {
        var out: [String: Element] = [:]
        for e in elements where e.name == "rect" && (e.attributes["class"] ?? "").split(separator: " ").contains("box") {
            out[e.attributes["data-id"] ?? ""] = e
        }
        return out
    }

    public func classes(_ e: Element?) -> Set<String> { Set((e?.attributes["class"] ?? "").split(separator: " ").map(String.init)) }

    public func frame(_ e: Element?) -> [Double] {
        ["x", "y", "width", "height"].map { Double(e?.attributes[$0] ?? "") ?? .nan }
    }

    /// All text of the legend.
    public var legend: String {
        elements.filter { $0.name == "text" && $0.attributes["data-id"] == nil }.map(\.text).joined(separator: "\n")
    }
}
