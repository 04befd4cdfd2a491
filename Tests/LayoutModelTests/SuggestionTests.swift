import JSON
import Testing
@testable import LayoutModel

@Suite("Did you mean: suggestions on problems")
struct SuggestionTests {
    /// The problem at `pointer` of an invalid document.
    func problem(_ text: String, at pointer: String) -> Problem? {
        DocTest.problems(text).first { $0.pointer == pointer }
    }

    static let views = """
    "root": {"frame": {"width": 320, "height": 480}}, "button": {"parent": "root"}, "label": {"parent": "root"}
    """

    @Test("the distance rule: case-insensitive, swaps count once, at most max(1, length/3), ties to the first candidate")
    func distanceRule() {
        #expect(Suggestion.nearest("centerx", among: ["centerX", "centerY"]) == "centerX")
        #expect(Suggestion.nearest("buton", among: ["root", "button"]) == "button")
        #expect(Suggestion.nearest("hieght", among: ["width", "height"]) == "height")   // one swap
        #expect(Suggestion.nearest("ab", among: ["xy"]) == nil)                           // 2 > max(1, 2/3)
        #expect(Suggestion.nearest("bar", among: ["baz", "bat"]) == "baz")                // tie: first wins
        #expect(Suggestion.nearest("colour", among: ["frame", "hidden", "alpha"]) == nil)
    }

    @Test("an unknown attribute in an expression suggests the attribute (centerx → centerX)")
    func attributeInExpression() {
        let p = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": \"button.centerx == root.centerX\"}}",
                        at: "/constraints/c")
        #expect(p?.code == "unknown_attribute")
        #expect(p?.suggestion == "centerX")
        #expect(p?.detail.contains("did you mean 'centerX'?") == true, "\(String(describing: p))")
    }

    @Test("an unknown attribute in an object-form anchor suggests the attribute")
    func attributeInObjectForm() {
        let p = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": {\"first\": \"button.leadng\", \"constant\": 4}}}",
                        at: "/constraints/c/first")
        #expect(p?.code == "unknown_attribute")
        #expect(p?.suggestion == "leading")
    }

    @Test("a misspelt view id in an expression and in a visual format suggests the nearest id")
    func viewIDs() {
        let expr = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": \"buton.top == root.top\"}}",
                           at: "/constraints/c")
        #expect(expr?.code == "unknown_view")
        #expect(expr?.suggestion == "button")
        let format = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"v\": {\"format\": \"H:|-[lable]-|\"}}}",
                             at: "/constraints/v/format")
        #expect(format?.code == "unknown_view")
        #expect(format?.suggestion == "label")
        let parent = problem("{\"views\": {\(Self.views), \"x\": {\"parent\": \"Root\"}}}", at: "/views/x/parent")
        #expect(parent?.suggestion == "root")
    }

    @Test("unknown fields suggest the nearest allowed field, at the top level, in a view and in a nested object")
    func fields() {
        let doc = "{\"view\": {}, \"views\": {\"root\": {\"hiden\": true, \"frame\": {\"widht\": 1}}}}"
        #expect(problem(doc, at: "/view")?.suggestion == "views")
        #expect(problem(doc, at: "/views/root/hiden")?.suggestion == "hidden")
        #expect(problem(doc, at: "/views/root/frame/widht")?.suggestion == "width")
        #expect(problem(doc, at: "/views/root/frame/widht")?.code == "unknown_field")
    }

    @Test("a misspelt priority name suggests the name, in a priority field and inside an expression")
    func priorities() {
        let field = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": {\"expr\": \"button.top == root.top\", \"priority\": \"requird\"}}}",
                            at: "/constraints/c/priority")
        #expect(field?.code == "invalid_priority")
        #expect(field?.suggestion == "required")
        let inline = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": \"button.top == root.top ~ hihg\"}}",
                             at: "/constraints/c")
        #expect(inline?.suggestion == "high")
    }

    @Test("suggestions only add to messages: every problem is still reported with its pointer and code")
    func everyProblemStillReported() {
        let codes = DocTest.pointersAndCodes("""
        {"views": {\(Self.views)}, "constraints": {"a": "buton.top == root.top", "b": "button.centerx == root.centerX",
         "c": {"expr": "label.top == root.top", "priority": "requird"}}}
        """)
        #expect(codes == ["/constraints/a unknown_view", "/constraints/b unknown_attribute", "/constraints/c/priority invalid_priority"])
    }

    @Test("every priority name is a suggestion candidate, and a number never gets one")
    func priorityCandidates() {
        #expect(Set(Priority.orderedNames) == Set(Priority.names.keys))
        #expect(Priority.suggestion(for: "1500") == nil)
        #expect(Priority.suggestion(for: "fitingSize") == "fittingSize")
    }

    @Test("a word with nothing near gets no suggestion")
    func nothingNear() {
        let p = problem("{\"views\": {\(Self.views)}, \"constraints\": {\"c\": \"zzzzzz.top == root.top\"}}", at: "/constraints/c")
        #expect(p?.code == "unknown_view")
        #expect(p?.suggestion == nil)
        #expect(p?.detail.contains("did you mean") == false)
    }

    @Test("the constant of a one-constraint expression is replaced or appended on the right-hand side")
    func replacingConstant() {
        let views = ViewLookup(["a": View(id: "a"), "b": View(id: "b")])
        #expect(ExpressionCompiler.replacingConstant(in: "a.top == b.bottom + 8", with: 20, views: views) == "a.top == b.bottom + 20")
        #expect(ExpressionCompiler.replacingConstant(in: "a.top == b.bottom - 8 ~ 750", with: -3, views: views) == "a.top == b.bottom - 3 ~ 750")
        #expect(ExpressionCompiler.replacingConstant(in: "a.width == b.width * 2", with: 1.5, views: views) == "a.width == b.width * 2 + 1.5")
        #expect(ExpressionCompiler.replacingConstant(in: "a.width == 2 * -8", with: 4, views: views) == "a.width == 2 * -8 + 4")
    }
}
