import JSON
import Testing
@testable import LayoutModel

@Suite("Document problems")
struct DocumentProblemsTests {
    @Test("a document that is not an object is invalid_type at the root pointer")
    func notAnObject() {
        #expect(DocumentParser.parse(.array([])) == .failure(ValidationError([Problem(
            pointer: "", code: "invalid_type",
            detail: "a layout document is a JSON object with \"views\" (and usually \"constraints\"), got an array")])))
    }

    @Test("missing views is missing_field at /views")
    func missingViews() {
        #expect(DocTest.pointersAndCodes(#"{"constraints": {}}"#) == ["/views missing_field"])
    }

    @Test("an empty views object or array is no_views")
    func noViews() {
        #expect(DocTest.pointersAndCodes(#"{"views": {}}"#) == ["/views no_views"])
        #expect(DocTest.pointersAndCodes(#"{"views": []}"#) == ["/views no_views"])
    }

    @Test("unknown fields at the top level, in a view and in nested objects are unknown_field")
    func unknownFields() {
        #expect(DocTest.pointersAndCodes("""
        {"version": 1, "views": {"root": {"colour": "red", "frame": {"w": 1}, "margins": {"start": 1},
          "hugging": {"h": 1}, "baseline": {"middle": 1}, "intrinsicSize": {"depth": 2}}}}
        """) == [
            "/version unknown_field", "/views/root/colour unknown_field", "/views/root/frame/w unknown_field",
            "/views/root/margins/start unknown_field", "/views/root/hugging/h unknown_field",
            "/views/root/baseline/middle unknown_field", "/views/root/intrinsicSize/depth unknown_field",
        ])
    }

    @Test("wrong JSON types are invalid_type at the value's pointer")
    func invalidTypes() {
        #expect(DocTest.pointersAndCodes("""
        {"direction": 1, "dialect": true, "flags": {"a": 1}, "delegate": [], "views": {
          "root": {"parent": 3, "kind": null, "frame": [], "hidden": "no", "alpha": "1",
                   "margins": {"top": "8"}, "hugging": 250}}}
        """) == [
            "/direction invalid_type", "/dialect invalid_type", "/flags/a invalid_type", "/delegate invalid_type",
            "/views/root/parent invalid_type", "/views/root/kind invalid_type", "/views/root/frame invalid_type",
            "/views/root/hidden invalid_type", "/views/root/alpha invalid_type", "/views/root/margins/top invalid_type",
            "/views/root/hugging invalid_type",
        ])
        #expect(DocTest.pointersAndCodes(#"{"views": "root"}"#) == ["/views invalid_type"])
        #expect(DocTest.pointersAndCodes(#"{"views": {"root": []}}"#) == ["/views/root invalid_type"])
    }

    @Test("unknown words for direction, dialect and kind are invalid_value")
    func invalidValues() {
        #expect(DocTest.pointersAndCodes("""
        {"direction": "ttb", "dialect": "snapkit", "views": {"root": {"kind": "window"}}}
        """) == ["/direction invalid_value", "/dialect invalid_value", "/views/root/kind invalid_value"])
    }

    @Test("a parent naming no view is unknown_view")
    func unknownParent() {
        #expect(DocTest.pointersAndCodes(#"{"views": {"root": {}, "a": {"parent": "roto"}}}"#)
                == ["/views/a/parent unknown_view"])
    }

    @Test("fields a guide cannot have are not_for_guide, each at its pointer")
    func notForGuide() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {}, "g": {"intrinsicSize": {"width": 1}, "parent": "root", "margins": {},
          "baseline": {}, "hidden": true, "alpha": 1, "kind": "guide"}}}
        """) == [
            "/views/g/intrinsicSize not_for_guide", "/views/g/margins not_for_guide", "/views/g/baseline not_for_guide",
            "/views/g/hidden not_for_guide", "/views/g/alpha not_for_guide",
        ])
    }

    @Test("NaN, infinities and numbers beyond the limit are number_out_of_range")
    func numberRange() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {"frame": {"x": 1e400, "y": -1e400, "width": 1e300, "height": 10000001}}}}
        """) == [
            "/views/root/frame/x number_out_of_range", "/views/root/frame/y number_out_of_range",
            "/views/root/frame/width number_out_of_range", "/views/root/frame/height number_out_of_range",
        ])
        let nan = JSONValue.object(JSONObject([("views", .object(JSONObject([
            ("root", .object(JSONObject([("alpha", .number(.nan))])))])))]))
        guard case .failure(let e) = DocumentParser.parse(nan) else { Issue.record("NaN accepted"); return }
        #expect(e.problems.map(\.code) == ["number_out_of_range"])
        #expect(e.problems.map(\.pointer) == ["/views/root/alpha"])
    }

    @Test("the magnitude limit comes from DocumentLimits")
    func magnitudeLimit() {
        let limits = DocumentLimits(maxMagnitude: 100)
        #expect(DocTest.pointersAndCodes(#"{"views": {"root": {"frame": {"width": 100, "height": 100.5}}}}"#,
                                         limits: limits) == ["/views/root/frame/height number_out_of_range"])
    }

    @Test("negative frame sizes and intrinsic sizes are negative_size; negative positions are fine")
    func negativeSize() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {"frame": {"x": -5, "y": -1, "width": -1}},
                   "a": {"parent": "root", "intrinsicSize": {"width": 0, "height": -21}}}}
        """) == ["/views/root/frame/width negative_size", "/views/a/intrinsicSize/height negative_size"])
    }

    @Test("alpha outside 0...1 is out_of_range")
    func alphaRange() {
        #expect(DocTest.pointersAndCodes(#"{"views": {"root": {"alpha": 1.5}, "a": {"alpha": -0.1}, "b": {"alpha": 0}}}"#)
                == ["/views/root/alpha out_of_range", "/views/a/alpha out_of_range"])
    }

    @Test("hugging and compression resistance go through Priority: invalid_priority")
    func priorities() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {"hugging": {"horizontal": 0, "vertical": "urgent"},
                            "compressionResistance": {"horizontal": 1001, "vertical": "low"}}}}
        """) == [
            "/views/root/hugging/horizontal invalid_priority", "/views/root/hugging/vertical invalid_priority",
            "/views/root/compressionResistance/horizontal invalid_priority",
        ])
    }

    @Test("more views than the limit is too_many_views, and the views are not read")
    func tooManyViews() {
        let limits = DocumentLimits(maxViews: 2)
        #expect(DocTest.pointersAndCodes(#"{"views": {"a": {}, "b": {}, "c": {"bad": 1}}}"#, limits: limits)
                == ["/views too_many_views"])
        #expect(DocTest.pointersAndCodes(#"{"views": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#, limits: limits)
                == ["/views too_many_views"])
        #expect(DocTest.problems(#"{"views": {"a": {}, "b": {}}}"#, limits: limits).isEmpty)
    }

    @Test("more constraints than the limit is too_many_constraints")
    func tooManyConstraints() {
        let limits = DocumentLimits(maxConstraints: 1)
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {}}, "constraints": [{"first": "a.width", "constant": 1}, {"first": "a.height", "constant": 1}]}
        """, limits: limits) == ["/constraints too_many_constraints"])
    }

    @Test("every problem is reported at once, in document order")
    func manyAtOnce() {
        let found = DocTest.problems("""
        {"constraints": {"c1": {"bogus": 1}}, "views": {"root": {"alpha": 2, "frame": {"width": -1}},
          "a": {"parent": "nope"}}, "direction": "up", "extra": null}
        """)
        #expect(found.map { "\($0.pointer) \($0.code)" } == [
            "/constraints/c1 unknown_constraint_form",
            "/views/root/alpha out_of_range", "/views/root/frame/width negative_size", "/views/a/parent unknown_view",
            "/direction invalid_value", "/extra unknown_field",
        ])
        #expect(found.allSatisfy { !$0.detail.isEmpty })
    }

    @Test("the same invalid document gives the same problems every time")
    func deterministic() {
        let text = #"{"views": {"b": {"parent": "c"}, "c": {"parent": "b"}, "x": {"alpha": 9}}, "flags": {"f": 1}}"#
        let first = DocTest.problems(text)
        for _ in 0..<5 { #expect(DocTest.problems(text) == first) }
    }

    @Test("messages tell the reader what to do")
    func messages() {
        let p = DocTest.problems(#"{"views": {"root": {"kind": "guide", "margins": {}}}, "dialect": "x"}"#)
        #expect(p[0].detail.contains("guide"))
        #expect(p[1].detail.contains("standard, mag, mortar, cartography"))
    }

    @Test("every code the parser emits is in the registry, and every registered code has a meaning")
    func registry() {
        for code in ProblemCode.allCases { #expect(!code.meaning.isEmpty) }
        #expect(Set(ProblemCode.allCases.map(\.rawValue)).count == ProblemCode.allCases.count)
        let theirs = [
            ConstraintProblemCode.missingField, ConstraintProblemCode.invalidType, ConstraintProblemCode.unknownView,
            ConstraintProblemCode.unknownAttribute, ConstraintProblemCode.invalidAnchor,
            ConstraintProblemCode.invalidRelation, ConstraintProblemCode.invalidConstant,
            ConstraintProblemCode.invalidMultiplier, ConstraintProblemCode.componentMismatch,
            ConstraintProblemCode.numberOutOfRange, ConstraintProblemCode.syntax,
            ConstraintProblemCode.invalidPriority, ConstraintProblemCode.duplicatePriority,
            ConstraintProblemCode.nonLinear, ConstraintProblemCode.divisionByZero, ConstraintProblemCode.invalidInset,
            ConstraintProblemCode.nonConstantTuple, ConstraintProblemCode.noAnchor, ConstraintProblemCode.crossAxis,
            ConstraintProblemCode.mixedDirection, ConstraintProblemCode.positionConstant,
            ConstraintProblemCode.notForGuide, ConstraintProblemCode.noCommonRoot,
        ]
        for code in theirs { #expect(ProblemCode(rawValue: code) != nil, "\(code) is not registered") }
    }
}
