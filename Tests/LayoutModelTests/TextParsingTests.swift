import JSON
import Testing
@testable import LayoutModel

@Suite("Text that wraps in the document")
struct TextParsingTests {
    @Test("a view's text is read with its word widths, space, line height and maxLines (0 when left out)")
    func textIsRead() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"root": {}, "a": {"parent": "root", "text": {"wordWidths": [30, 40.5], "spaceWidth": 5, "lineHeight": 20}},
                   "b": {"parent": "root", "text": {"wordWidths": [1], "spaceWidth": 0, "lineHeight": 12, "maxLines": 3}}}}
        """))
        #expect(doc.views[1].text == .words(WrappedText(wordWidths: [30, 40.5], spaceWidth: 5, lineHeight: 20, maxLines: 0)))
        #expect(doc.views[2].text == .words(WrappedText(wordWidths: [1], spaceWidth: 0, lineHeight: 12, maxLines: 3)))
        #expect(doc.views[0].text == nil)
    }

    @Test("heightForWidth is read as ascending samples; intrinsicSize.width may stay beside it")
    func heightForWidthIsRead() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"root": {}, "a": {"parent": "root", "heightForWidth": [[100, 60], [200, 40]], "intrinsicSize": {"width": 150}}}}
        """))
        #expect(doc.views[1].text == .heightForWidth([HeightSample(width: 100, height: 60), HeightSample(width: 200, height: 40)]))
        #expect(doc.views[1].intrinsicWidth == 150)
    }

    @Test("every problem of a text is reported at once, at its pointer, in field order")
    func textProblems() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"text": {"wordWidths": [10, -3, "x"], "spaceWidth": -1, "lineHeight": 20, "maxLines": 1.5, "font": 1}}}}
        """) == ["/views/a/text/wordWidths/1 negative_size", "/views/a/text/wordWidths/2 invalid_type",
                 "/views/a/text/spaceWidth negative_size", "/views/a/text/maxLines out_of_range",
                 "/views/a/text/font unknown_field"])
    }

    @Test("an empty word list is empty_list; missing members are missing_field")
    func emptyAndMissing() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"text": {"wordWidths": []}}}}
        """) == ["/views/a/text/wordWidths empty_list", "/views/a/text/spaceWidth missing_field",
                 "/views/a/text/lineHeight missing_field"])
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"heightForWidth": []}}}
        """) == ["/views/a/heightForWidth empty_list"])
    }

    @Test("heightForWidth widths that do not ascend strictly are not_ascending at the offending width")
    func notAscending() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"heightForWidth": [[100, 60], [100, 50], [90, 40], [200, -1], [1, 2, 3], 7]}}}
        """) == ["/views/a/heightForWidth/1/0 not_ascending", "/views/a/heightForWidth/2/0 not_ascending",
                 "/views/a/heightForWidth/3/1 negative_size", "/views/a/heightForWidth/4 invalid_type",
                 "/views/a/heightForWidth/5 invalid_type"])
    }

    @Test("text with heightForWidth, or either with intrinsicSize.height, is conflicting_fields")
    func conflicts() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"text": {"wordWidths": [1], "spaceWidth": 1, "lineHeight": 1}, "heightForWidth": [[1, 1]]}}}
        """) == ["/views/a/heightForWidth conflicting_fields"])
        #expect(DocTest.pointersAndCodes("""
        {"views": {"a": {"intrinsicSize": {"width": 5, "height": 9}, "heightForWidth": [[1, 1]]}}}
        """) == ["/views/a/intrinsicSize/height conflicting_fields"])
    }

    @Test("a layout guide has no text: not_for_guide")
    func guides() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {}, "g": {"parent": "root", "kind": "guide", "heightForWidth": [[1, 1]]}}}
        """) == ["/views/g/heightForWidth not_for_guide"])
    }

    @Test("greedy breaking: words while they fit, one space between, a long word alone, maxLines caps")
    func greedyLines() {
        let t = WrappedText(wordWidths: [30, 40, 50], spaceWidth: 5, lineHeight: 20)
        #expect(t.oneLineWidth == 130)
        #expect(t.lines(atWidth: 130) == 1)
        #expect(t.lines(atWidth: 129.99999999999) == 1, "a width a rounding step short still holds the line")
        #expect(t.lines(atWidth: 129) == 2)
        #expect(t.lines(atWidth: 75) == 2)
        #expect(t.lines(atWidth: 74) == 3)
        #expect(t.lines(atWidth: 0) == 3)
        let long = WrappedText(wordWidths: [20, 150, 20], spaceWidth: 5, lineHeight: 16)
        #expect(long.lines(atWidth: 100) == 3)
        #expect(WrappedText(wordWidths: [40, 40, 40, 40], spaceWidth: 4, lineHeight: 18, maxLines: 2).lines(atWidth: 50) == 2)
        let hfw = TextSpec.heightForWidth([HeightSample(width: 100, height: 60), HeightSample(width: 200, height: 40)])
        #expect(hfw.height(atWidth: 50) == 60 && hfw.height(atWidth: 199) == 60 && hfw.height(atWidth: 200) == 40)
        #expect(hfw.intrinsicWidth == 200)
    }
}
