import LayoutEngine
import LayoutModel

/// Draws a solved layout as a standalone SVG picture: nested boxes labelled with their ids.
///
/// A pure function of the document, its frames and diagnostics. What the picture shows:
/// - every view as a box at its absolute frame (`x`, `y`, `width`, `height` of the `rect` are the
///   frame's values), children inside their parent's group, each labelled with its id;
/// - views that are not visible (hidden, alpha 0, or inside a view that is not) dashed;
/// - layout guides dotted and unfilled;
/// - the views of broken constraints (each broken entry's first items) outlined in red;
/// - ambiguous views hatched in orange;
/// - a legend under the roots: the key, then the broken constraints with what they conflict with,
///   the ambiguous views and the inactive constraints.
///
/// The `viewBox` spans the roots' frames plus a margin (wider when the legend needs the room), and
/// the legend below them. Ids are
/// XML-escaped; each box and label carries its view's id in `data-id`.
public enum SVGRenderer {
    public static let mediaType = "image/svg+xml"

    static let margin = 16.0
    static let fontSize = 11.0
    static let lineHeight = 16.0
    /// Longest list shown in the legend before "… and N more".
    static let legendListLimit = 40

    static let fills = ["#e3f2fd", "#e8f5e9", "#fff8e1", "#f3e5f5", "#e0f7fa", "#fbe9e7"]
    static let stroke = "#37474f"
    static let hiddenStroke = "#90a4ae"
    static let guideStroke = "#8e24aa"
    static let brokenStroke = "#d50000"
    static let hatch = "#ef6c00"
    static let hiddenDash = "6 4"
    static let guideDash = "1 3"

    /// - Parameters:
    ///   - frames: absolute frames (relative to the root), as `LayoutSystem.frames(.absolute)` gives.
    public static func render(document: Document, frames: [(id: String, frame: Frame)],
                              diagnostics: Diagnostics) -> String {
        var frameOf: [String: Frame] = [:]
        for (id, f) in frames { frameOf[id] = normalized(f) }
        var viewOf: [String: View] = [:]
        for v in document.views where viewOf[v.id] == nil { viewOf[v.id] = v }
        var children: [String: [View]] = [:]
        var roots: [View] = []
        for v in document.views {
            if let p = v.parent, viewOf[p] != nil, p != v.id {
                children[p, default: []].append(v)
            } else {
                roots.append(v)
            }
        }

        let brokenViews = Self.brokenViews(document, diagnostics, viewOf)
        let ambiguous = Set(diagnostics.ambiguous)

        // Bounds: the roots' frames.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for r in roots {
            guard let f = frameOf[r.id] else { continue }
            minX = min(minX, f.x); minY = min(minY, f.y)
            maxX = max(maxX, f.x + f.width); maxY = max(maxY, f.y + f.height)
        }
        if !minX.isFinite { minX = 0; minY = 0; maxX = 0; maxY = 0 }

        let legend = legendLines(diagnostics)
        let legendWidth = legend.map { estimatedWidth($0.text) + $0.indent }.max() ?? 0
        let keyWidth = keyItems.reduce(0) { $0 + keyItemWidth($1) }
        let legendTop = maxY + margin
        let vbX = minX - margin, vbY = minY - margin
        let vbW = max(maxX - minX, legendWidth, keyWidth) + 2 * margin
        let vbH = (legendTop - vbY) + lineHeight * Double(legend.count + 1) + margin

        var out = ""
        out.reserveCapacity(512 + document.views.count * 320)
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""
        out += " viewBox=\"\(n(vbX)) \(n(vbY)) \(n(vbW)) \(n(vbH))\" width=\"\(n(vbW))\" height=\"\(n(vbH))\""
        out += " font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"\(n(fontSize))\">\n"
        out += "<title>\(escape(title(document, diagnostics)))</title>\n"
        out += "<defs><pattern id=\"layoutd-hatch\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\""
        out += " patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"\(hatch)\" fill-opacity=\"0.08\"/>"
        out += "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"\(hatch)\" stroke-width=\"3\" stroke-opacity=\"0.7\"/>"
        out += "</pattern></defs>\n"
        out += "<rect class=\"background\" x=\"\(n(vbX))\" y=\"\(n(vbY))\" width=\"\(n(vbW))\" height=\"\(n(vbH))\" fill=\"#ffffff\"/>\n"

        // Boxes, parents before children; labels on top of every box.
        var labels = ""
        var visited = Set<String>()
        out += "<g class=\"views\">\n"
        // An explicit stack, not recursion: a parent chain as deep as `maxViews` (20,000) overflowed
        // the thread's stack and killed the daemon. `.close` ends a view's group after its children.
        enum Step { case open(View, depth: Int, parentVisible: Bool), close }
        var steps: [Step] = roots.reversed().map { .open($0, depth: 0, parentVisible: true) }
        while let step = steps.popLast() {
            guard case .open(let v, let depth, let parentVisible) = step else { out += "</g>\n"; continue }
            guard visited.insert(v.id).inserted else { continue }
            let visible = parentVisible && (v.kind == .guide || (!v.hidden && v.alpha > 0))
            let id = escape(v.id)
            out += "<g class=\"view\" data-id=\"\(id)\">\n"
            if let f = frameOf[v.id] {
                var classes = ["box"]
                if v.kind == .guide { classes.append("guide") }
                if !visible { classes.append("hidden") }
                let broken = brokenViews.contains(v.id)
                if broken { classes.append("broken") }
                if ambiguous.contains(v.id) { classes.append("ambiguous") }
                let geometry = "x=\"\(n(f.x))\" y=\"\(n(f.y))\" width=\"\(n(f.width))\" height=\"\(n(f.height))\""
                out += "<rect class=\"\(classes.joined(separator: " "))\" data-id=\"\(id)\" \(geometry)"
                if v.kind == .guide {
                    out += " fill=\"none\""
                } else {
                    let opacity = visible ? 0.9 * max(0.15, min(1, v.alpha)) : 0.35
                    out += " fill=\"\(fills[depth % fills.count])\" fill-opacity=\"\(n(opacity))\""
                }
                let color = broken ? brokenStroke : v.kind == .guide ? guideStroke : visible ? stroke : hiddenStroke
                out += " stroke=\"\(color)\" stroke-width=\"\(broken ? "2.5" : v.kind == .guide ? "1.5" : "1")\""
                if v.kind == .guide {
                    out += " stroke-dasharray=\"\(guideDash)\" stroke-linecap=\"round\""
                } else if !visible {
                    out += " stroke-dasharray=\"\(hiddenDash)\""
                }
                out += " vector-effect=\"non-scaling-stroke\"/>\n"
                if ambiguous.contains(v.id) {
                    out += "<rect class=\"ambiguous-mark\" data-id=\"\(id)\" \(geometry) fill=\"url(#layoutd-hatch)\"/>\n"
                }
                let ink = broken ? brokenStroke : visible ? "#263238" : "#78909c"
                labels += "<text data-id=\"\(id)\" x=\"\(n(f.x + 4))\" y=\"\(n(f.y + fontSize + 2))\" fill=\"\(ink)\""
                labels += " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\">"
                labels += id + "</text>\n"
            }
            steps.append(.close)
            for c in (children[v.id] ?? []).reversed() { steps.append(.open(c, depth: depth + 1, parentVisible: visible)) }
        }
        out += "</g>\n<g class=\"labels\">\n" + labels + "</g>\n"

        // Legend: the key, then one line per entry.
        out += "<g class=\"legend\" fill=\"#263238\">\n"
        var x = minX
        let keyY = legendTop
        let key: [(String, String)] = [
            ("view", "fill=\"\(fills[0])\" stroke=\"\(stroke)\""),
            ("hidden", "fill=\"\(fills[0])\" fill-opacity=\"0.35\" stroke=\"\(hiddenStroke)\" stroke-dasharray=\"\(hiddenDash)\""),
            ("guide", "fill=\"none\" stroke=\"\(guideStroke)\" stroke-width=\"1.5\" stroke-dasharray=\"\(guideDash)\" stroke-linecap=\"round\""),
            ("broken", "fill=\"\(fills[0])\" stroke=\"\(brokenStroke)\" stroke-width=\"2.5\""),
            ("ambiguous", "fill=\"url(#layoutd-hatch)\" stroke=\"\(stroke)\""),
        ]
        for (name, style) in key {
            out += "<rect class=\"key-\(name)\" x=\"\(n(x))\" y=\"\(n(keyY))\" width=\"14\" height=\"11\" \(style)/>"
            out += "<text x=\"\(n(x + 18))\" y=\"\(n(keyY + 10))\">\(name)</text>\n"
            x += keyItemWidth(name)
        }
        for (i, line) in legend.enumerated() {
            let y = legendTop + lineHeight * Double(i + 1) + 10
            out += "<text class=\"\(line.kind)\" x=\"\(n(minX + line.indent))\" y=\"\(n(y))\""
            if line.kind == "broken" { out += " fill=\"\(brokenStroke)\"" }
            if line.bold { out += " font-weight=\"bold\"" }
            out += ">\(escape(line.text))</text>\n"
        }
        out += "</g>\n</svg>\n"
        return out
    }

    // MARK: parts

    /// The views a broken entry is about: the first item's view of each of its constraints (all its
    /// views when there is no first view), or for a constraint a view's field makes
    /// (`label.intrinsicSize.width.hugging`), that view.
    static func brokenViews(_ document: Document, _ diagnostics: Diagnostics, _ viewOf: [String: View]) -> Set<String> {
        guard !diagnostics.broken.isEmpty else { return [] }
        var entries: [String: ConstraintEntry] = [:]
        for e in document.constraints where entries[e.id] == nil { entries[e.id] = e }
        var out = Set<String>()
        for b in diagnostics.broken {
            if let e = entries[b.id] {
                for item in e.items {
                    if let v = item.firstView { out.insert(v) } else { out.formUnion(item.views) }
                }
            } else if let dot = b.id.firstIndex(of: "."), viewOf[String(b.id[..<dot])] != nil {
                out.insert(String(b.id[..<dot]))
            }
        }
        return out
    }

    static let keyItems = ["view", "hidden", "guide", "broken", "ambiguous"]

    /// Swatch, gap, name, gap.
    static func keyItemWidth(_ name: String) -> Double { 18 + estimatedWidth(name) + 10 }

    struct LegendLine {
        var text: String
        var kind: String
        var indent: Double = 0
        var bold = false
    }

    static func legendLines(_ d: Diagnostics) -> [LegendLine] {
        var lines: [LegendLine] = []
        if d.broken.isEmpty {
            lines.append(LegendLine(text: "Broken constraints: none", kind: "heading"))
        } else {
            lines.append(LegendLine(text: "Broken constraints (\(d.broken.count)):", kind: "heading", bold: true))
            for b in d.broken.prefix(legendListLimit) {
                let with = b.conflictsWith.isEmpty ? "" : " — conflicts with " + b.conflictsWith.joined(separator: ", ")
                lines.append(LegendLine(text: "✕ " + b.id + with, kind: "broken", indent: 12))
            }
            if d.broken.count > legendListLimit {
                lines.append(LegendLine(text: "… and \(d.broken.count - legendListLimit) more", kind: "broken", indent: 12))
            }
        }
        lines += list("Ambiguous views", d.ambiguous, kind: "ambiguous")
        lines += list("Inactive constraints", d.inactive, kind: "inactive")
        return lines
    }

    /// "Title (n): a, b, c" wrapped at about 90 characters.
    private static func list(_ title: String, _ items: [String], kind: String) -> [LegendLine] {
        guard !items.isEmpty else { return [LegendLine(text: title + ": none", kind: "heading")] }
        var lines = [LegendLine(text: "\(title) (\(items.count)):", kind: "heading", bold: true)]
        var shown = Array(items.prefix(legendListLimit))
        if items.count > legendListLimit { shown.append("… and \(items.count - legendListLimit) more") }
        var current = ""
        for (i, item) in shown.enumerated() {
            let piece = item + (i < shown.count - 1 ? "," : "")
            if !current.isEmpty && current.count + piece.count + 1 > 90 {
                lines.append(LegendLine(text: current, kind: kind, indent: 12))
                current = ""
            }
            current += current.isEmpty ? piece : " " + piece
        }
        if !current.isEmpty { lines.append(LegendLine(text: current, kind: kind, indent: 12)) }
        return lines
    }

    static func title(_ document: Document, _ d: Diagnostics) -> String {
        func count(_ k: Int, _ noun: String) -> String { k == 1 ? "1 \(noun)" : "\(k) \(noun)s" }
        return "layoutd: " + count(document.views.count, "view") + ", " + count(d.broken.count, "broken constraint")
            + ", " + count(d.ambiguous.count, "ambiguous view")
    }

    /// A rough width of `text` at the legend's font size (average glyph 0.6 em).
    static func estimatedWidth(_ text: String) -> Double { Double(text.count) * fontSize * 0.6 }

    /// Non-negative width and height (a negative size flips the box), non-finite values as 0.
    static func normalized(_ f: Frame) -> Frame {
        func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }
        var r = Frame(x: finite(f.x), y: finite(f.y), width: finite(f.width), height: finite(f.height))
        if r.width < 0 { r.x += r.width; r.width = -r.width }
        if r.height < 0 { r.y += r.height; r.height = -r.height }
        return r
    }

    /// A number for an attribute: integers without a fraction, others in Swift's shortest form.
    static func n(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    /// Text safe in XML content and attribute values: `& < > " '` escaped; characters XML 1.0
    /// cannot carry (most C0 controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }
}
