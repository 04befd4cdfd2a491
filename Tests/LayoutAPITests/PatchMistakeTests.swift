import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI
import Storage

@Suite("PATCH: no silent mistakes (did you mean)")
struct PatchMistakeTests {
    static let document = """
    {"views": {"root": {"frame": {"width": 320, "height": 200}},
               "button": {"parent": "root", "intrinsicSize": {"width": 80, "height": 30}},
               "label": {"parent": "root", "intrinsicSize": {"width": 120, "height": 20}}},
     "constraints": {"by": "button.top == root.top + 10", "bx": "button.leading == root.leading + 16",
                     "fill": "label.edges == root.edges", "ly": {"first": "label.top", "second": "button.bottom", "constant": 8}}}
    """

    func session() -> Client {
        let c = Client()
        let r = c.put("s", Self.document)
        #expect(r.status == 201, "\(r.text)")
        return c
    }

    func document(_ c: Client) -> JSONValue { T.json(c.send("GET", "/v1/sessions/s"))["document"] ?? .null }

    /// The one entry of a 422's `errors`.
    func onlyError(_ r: APIResponse) -> JSONValue? {
        guard case .array(let errors)? = T.json(r)["errors"], errors.count == 1 else { return nil }
        return errors[0]
    }

    @Test("a misspelt view id given existing-only fields is a 422 suggesting the real id, and nothing changes")
    func misspeltViewIsRefused() {
        let c = session()
        let before = document(c)
        let r = c.patch("/v1/sessions/s", #"{"views": {"buton": {"hidden": true}}}"#)
        #expect(r.status == 422, "\(r.text)")
        let error = onlyError(r)
        #expect(error?["pointer"]?.stringValue == "/views/buton")
        #expect(error?["code"]?.stringValue == "unknown_view")
        #expect(error?["suggestion"]?.stringValue == "button")
        #expect(error?["detail"]?.stringValue?.contains("did you mean 'button'?") == true, "\(r.text)")
        #expect(document(c) == before)
        #expect(c.send("GET", "/v1/sessions/s").header("ETag").etagRevision == 1)
    }

    @Test("a frame alone on an unknown id is refused too; \"parent\": null creates a new root on purpose")
    func frameWithoutParent() {
        let c = session()
        let refused = c.patch("/v1/sessions/s", #"{"views": {"labl": {"frame": {"width": 10}}}}"#)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(onlyError(refused)?["suggestion"]?.stringValue == "label")
        let root = c.patch("/v1/sessions/s", #"{"views": {"panel": {"parent": null, "frame": {"width": 10, "height": 10}}}}"#)
        #expect(root.status == 200, "\(root.text)")
        #expect(document(c)["views"]?["panel"] != nil)
    }

    @Test("a view that names its parent is clearly new and is still created")
    func newViewWithParent() {
        let c = session()
        let r = c.patch("/v1/sessions/s", #"{"views": {"new": {"parent": "root"}}}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(document(c)["views"]?["new"]?["parent"]?.stringValue == "root")
        let hidden = c.patch("/v1/sessions/s", #"{"views": {"newer": {"parent": "root", "hidden": true}}}"#)
        #expect(hidden.status == 200, "\(hidden.text)")
    }

    @Test("centerx in a patched expression is a 422 suggesting centerX")
    func attributeSuggestion() {
        let c = session()
        let r = c.patch("/v1/sessions/s", #"{"constraints": {"cx": "button.centerx == root.centerX"}}"#)
        #expect(r.status == 422, "\(r.text)")
        let error = onlyError(r)
        #expect(error?["code"]?.stringValue == "unknown_attribute")
        #expect(error?["suggestion"]?.stringValue == "centerX")
    }

    @Test("a problem with nothing to suggest has no suggestion member")
    func noSuggestionMember() {
        let c = session()
        let r = c.patch("/v1/sessions/s", #"{"constraints": {"cx": "button.qqqqqqq == root.centerX"}}"#)
        #expect(r.status == 422, "\(r.text)")
        #expect(onlyError(r)?.objectValue?.keys == ["pointer", "code", "detail"])
    }

    @Test("a constant on a one-constraint expression string changes it in place and keeps the string form")
    func constantInPlace() {
        let c = session()
        let r = c.patch("/v1/sessions/s", #"{"constraints": {"by": {"constant": 80}}}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(document(c)["constraints"]?["by"]?.stringValue == "button.top == root.top + 80")
        let frames = T.json(c.send("GET", "/v1/sessions/s/frames"))
        #expect(frames["frames"]?["button"]?["y"]?.numberValue == 80, "\(T.text(frames))")
        T.expectSameAsFresh(c, "s", "constant in place")
        // Sent again, the same constant changes nothing.
        let again = c.patch("/v1/sessions/s", #"{"constraints": {"by": {"constant": 80}}}"#)
        #expect(again.status == 200)
        #expect(T.json(again)["revision"]?.numberValue == 2)
    }

    @Test("a constant set in place is what the store logs: a restart on the same store reads the same string")
    func constantInPlaceIsStored() {
        let storage = MemorySessionStorage()
        let before: JSONValue
        do {
            let c = Client(api: LayoutAPI(configuration: APIConfiguration(), storage: storage))
            #expect(c.put("s", Self.document).status == 201)
            #expect(c.patch("/v1/sessions/s", #"{"constraints": {"by": {"constant": 80}}}"#).status == 200)
            before = document(c)
        }
        let restarted = Client(api: LayoutAPI(configuration: APIConfiguration(), storage: storage))
        #expect(document(restarted)["constraints"]?["by"]?.stringValue == "button.top == root.top + 80")
        #expect(document(restarted) == before)
    }

    @Test("a constant on a composite expression string is a 422 asking for the new string, nothing changed")
    func constantOnComposite() {
        let c = session()
        let before = document(c)
        let r = c.patch("/v1/sessions/s", #"{"constraints": {"fill": {"constant": 4}}}"#)
        #expect(r.status == 422, "\(r.text)")
        let error = onlyError(r)
        #expect(error?["pointer"]?.stringValue == "/constraints/fill/constant")
        #expect(error?["code"]?.stringValue == "invalid_constant")
        #expect(error?["detail"]?.stringValue?.contains("send the new expression string") == true, "\(r.text)")
        #expect(document(c) == before)
    }
}
