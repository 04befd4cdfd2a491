import Foundation
import Testing
import JSON
import LayoutAPI
import TestSupport

/// docs/recipes.md runs: each ```` ```json recipe=NAME ```` block is solved with `POST /v1/solve`
/// at each width of the ```` ```json expected=NAME ```` block after it (the first root's
/// `frame.width` set to that width by a merge patch), and every frame listed there must come back
/// (`[x, y, width, height]`, parent-relative), with nothing broken or ambiguous. So the numbers the
/// page states are the numbers the daemon answers.
@Suite("Recipes in docs/recipes.md")
struct RecipesTests {
    struct Recipe: Sendable, CustomTestStringConvertible {
        let name: String
        let document: String
        let expected: String?
        var testDescription: String { name }
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/recipes.md").standardizedFileURL

    /// The blocks of the page, recipe by recipe, in the order written.
    static func recipes() -> [Recipe] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        var documents: [(String, String)] = []
        var expected: [String: String] = [:]
        var current: (kind: String, name: String, lines: [String])?
        for line in text.components(separatedBy: "\n") {
            if var open = current {
                if line.hasPrefix("```") {
                    let body = open.lines.joined(separator: "\n")
                    if open.kind == "recipe" { documents.append((open.name, body)) } else { expected[open.name] = body }
                    current = nil
                } else {
                    open.lines.append(line)
                    current = open
                }
            } else if line.hasPrefix("```json ") {
                let info = line.dropFirst("```json ".count).trimmingCharacters(in: .whitespaces)
                for kind in ["recipe", "expected"] where info.hasPrefix(kind + "=") {
                    current = (kind, String(info.dropFirst(kind.count + 1)), [])
                }
            }
        }
        return documents.map { Recipe(name: $0.0, document: $0.1, expected: expected[$0.0]) }
    }

    @Test("the page has the five layouts and the measured label, each with an expected block of at least two widths")
    func pageIsComplete() throws {
        let recipes = Self.recipes()
        #expect(recipes.map(\.name) == ["login-form", "card-list", "toolbar", "grid", "page-header", "measured-label"])
        for recipe in recipes {
            let expected = try JSONParser.parse(try #require(recipe.expected, "\(recipe.name) has no expected block"))
            let widths = expected.objectValue?.count ?? 0
            #expect(widths >= (recipe.name == "measured-label" ? 1 : 2), "\(recipe.name): \(widths) width(s)")
        }
        let login = try #require(recipes.first { $0.name == "login-form" }?.expected)
        let widths = try JSONParser.parse(login).objectValue?.entries.map(\.0) ?? []
        #expect(widths.contains("320") && widths.contains("1024"))
    }

    @Test("each recipe answers the frames its expected block states, at every width, nothing broken or ambiguous",
          arguments: recipes())
    func solves(_ recipe: Recipe) throws {
        let document = try JSONParser.parse(recipe.document)
        let expected = try JSONParser.parse(try #require(recipe.expected))
        let root = try #require(document["views"]?.objectValue?.entries.first { $0.1["parent"] == nil }?.0)
        let client = Client()
        for (width, frames) in try #require(expected.objectValue).entries {
            #expect(Double(width) != nil, "\(recipe.name): '\(width)' is not a width")
            let patch = try JSONParser.parse(#"{"views":{"\#(root)":{"frame":{"width":\#(width)}}}}"#)
            let body = JSONWriter.string(document.applyingMergePatch(patch))
            let r = client.send("POST", "/v1/solve", body: body)
            #expect(r.status == 200, "\(recipe.name) at \(width): \(r.text)")
            let answer = T.json(r)
            #expect(answer["diagnostics"]?["broken"]?.arrayValue?.isEmpty == true, "\(recipe.name) at \(width): \(r.text)")
            #expect(answer["diagnostics"]?["ambiguous"]?.arrayValue?.isEmpty == true, "\(recipe.name) at \(width): \(r.text)")
            for (view, frame) in try #require(frames.objectValue, "\(recipe.name) at \(width)").entries {
                let want = frame.arrayValue?.compactMap(\.numberValue) ?? []
                let got = FrameMaps.frames(answer["frames"])[view]
                #expect(want.count == 4, "\(recipe.name) at \(width): \(view) must be [x, y, width, height]")
                let same = got.map { g in zip(g, want).allSatisfy { abs($0 - $1) <= 0.01 } } ?? false
                #expect(same, "\(recipe.name) at \(width): \(view) is \(got ?? []), the page says \(want)")
            }
        }
    }
}
