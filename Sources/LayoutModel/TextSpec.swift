/// A view's text whose height depends on its width (docs/document.md, "Text that wraps"): the
/// `text` member (word widths a client measured, broken greedily into lines) or the
/// `heightForWidth` member (heights the client measured at a few widths). The model holds and
/// measures it; the engine's settle loop (`LayoutSystem.settleText`) asks for the height at each
/// solved width until the widths stop moving.
public enum TextSpec: Equatable, Sendable {
    case words(WrappedText)
    case heightForWidth([HeightSample])

    /// What intrinsic width the view has: the whole text on one line, or the widest measured width.
    public var intrinsicWidth: Double {
        switch self {
        case .words(let t): return t.oneLineWidth
        case .heightForWidth(let samples): return samples.last?.width ?? 0
        }
    }

    /// The intrinsic height at `width`.
    public func height(atWidth width: Double) -> Double {
        switch self {
        case .words(let t): return Double(t.lines(atWidth: width)) * t.lineHeight
        case .heightForWidth(let samples): return HeightSample.height(in: samples, atWidth: width)
        }
    }

    /// The height a view starts from before its width is solved: the text on one line (the
    /// widest measured width). Auto Layout, too, measures a label first at its unconstrained width.
    public var initialHeight: Double { height(atWidth: intrinsicWidth) }

    /// Why the height at `width` is what it is, in a few words (`2 lines`, `measured at width 200`).
    public func reason(atWidth width: Double) -> String {
        switch self {
        case .words(let t):
            let n = t.lines(atWidth: width)
            return n == 1 ? "1 line" : "\(n) lines"
        case .heightForWidth(let samples):
            return "measured at width \(formatNumber(HeightSample.sample(in: samples, atWidth: width)?.width ?? 0))"
        }
    }
}

/// The `text` member: words as a client's text system measured them.
public struct WrappedText: Equatable, Sendable {
    public var wordWidths: [Double]
    public var spaceWidth: Double
    public var lineHeight: Double
    /// At most this many lines; 0 = no limit.
    public var maxLines: Int

    public init(wordWidths: [Double], spaceWidth: Double, lineHeight: Double, maxLines: Int = 0) {
        self.wordWidths = wordWidths; self.spaceWidth = spaceWidth
        self.lineHeight = lineHeight; self.maxLines = maxLines
    }

    /// The words and the spaces between them on one line.
    public var oneLineWidth: Double {
        wordWidths.reduce(0, +) + spaceWidth * Double(max(wordWidths.count - 1, 0))
    }

    /// A width this close above what a line holds still holds it: a solved width is a sum of
    /// floating-point steps (a width meant to be 100 may come out 99.9999999999), and a word must
    /// not drop to the next line for it. Far below the conformance tolerance (1e-5).
    static let fitTolerance = 1e-7

    /// Lines that greedy breaking makes at `width`: words go on a line while they fit (one space
    /// before each but the line's first); a word that fits on no line takes a line of its own.
    /// Capped at `maxLines` when it is not 0.
    public func lines(atWidth width: Double) -> Int {
        guard !wordWidths.isEmpty else { return 0 }
        let limit = width + Self.fitTolerance
        var lines = 1
        var used = wordWidths[0]
        for w in wordWidths.dropFirst() {
            if used + spaceWidth + w <= limit {
                used += spaceWidth + w
            } else {
                lines += 1
                used = w
                // No need to go on: the cap is reached (a long text in a narrow view).
                if maxLines > 0 && lines >= maxLines { return maxLines }
            }
        }
        return maxLines > 0 ? min(lines, maxLines) : lines
    }
}

/// One entry of `heightForWidth`: the height a client measured at `width`.
public struct HeightSample: Equatable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }

    /// The sample at the largest listed width not above `width` (the first one below them all);
    /// `samples` ascend by width.
    static func sample(in samples: [HeightSample], atWidth width: Double) -> HeightSample? {
        guard var best = samples.first else { return nil }
        let limit = width + WrappedText.fitTolerance
        // Binary search: the last sample whose width fits.
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].width <= limit { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0 { best = samples[lo - 1] }
        return best
    }

    static func height(in samples: [HeightSample], atWidth width: Double) -> Double {
        sample(in: samples, atWidth: width)?.height ?? 0
    }
}
