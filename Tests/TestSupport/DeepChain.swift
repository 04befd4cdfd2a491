/// Documents that attack recursion: a parent chain as deep as the daemon's `maxViews`.
public enum DeepChain {
    /// A body limit that admits `document(depth)`.
    public static func bodyLimit(_ depth: Int) -> Int { 200 + depth * 80 }

    /// `depth` views `v0` (the root) … `v{depth-1}`, each 1 point right of and below its parent, 1 by 1 (every frame
    /// fixed: nothing ambiguous; about 1.3 MB for 20,000 views, over the default body limit),
    /// and a `bothVisible` constraint between the deepest view and the root (every view is
    /// visible, so it is active: a walk that gave up at some depth called the deep views hidden).
    public static func document(_ depth: Int) -> String {
        var text = #"{"views":{"v0":{"frame":{"x":0,"y":0,"width":10,"height":10}}"#
        text.reserveCapacity(depth * 80)
        for i in 1..<depth {
            text += #","v\#(i)":{"parent":"v\#(i - 1)","frame":{"x":1,"y":1,"width":1,"height":1}}"#
        }
        text += #"},"constraints":{"deep":{"first":"v\#(depth - 1).width","relation":"==","second":"v0.width","#
        text += #""priority":1000,"activation":"bothVisible"}}}"#
        return text
    }
}
