import Foundation

/// A `.systemLibrary` target of Package.swift: a C library the package links from the system, with
/// the Debian packages that provide it (`providers: [.apt([...])]`) and the libraries its module
/// map links (`link "pq"`).
struct SystemLibraryTarget {
    var name: String
    /// The pkg-config name, if the target has one (`libpq`).
    var pkgConfig: String?
    /// The `.apt([...])` providers: what a build machine installs for this library.
    var aptProviders: [String]
    /// The `link "…"` names of its module map (`pq` for `-lpq`).
    var linkNames: [String]

    /// The `.systemLibrary(...)` targets of a manifest's text; `moduleMap` reads a target's module
    /// map (Sources/<name>/module.modulemap, or the target's `path:`).
    static func parse(manifest: String, moduleMap: (_ directory: String) throws -> String) throws -> [SystemLibraryTarget] {
        // Whole-line comments only: "https://" inside a string is not a comment.
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: "\n")
        var targets: [SystemLibraryTarget] = []
        var searchFrom = code.startIndex
        while let start = code.range(of: ".systemLibrary(", range: searchFrom..<code.endIndex) {
            let call = try balancedCall(in: code, openingAt: code.index(before: start.upperBound))
            searchFrom = call.endIndex
            guard let name = stringArgument("name", in: call) else {
                throw TestFailure("a .systemLibrary in Package.swift has no name: \(call)")
            }
            let directory = stringArgument("path", in: call) ?? "Sources/\(name)"
            let map = try moduleMap(directory)
            targets.append(SystemLibraryTarget(
                name: name,
                pkgConfig: stringArgument("pkgConfig", in: call),
                aptProviders: aptProviders(in: call),
                linkNames: quotedStrings(afterEach: "link", in: map)))
        }
        return targets
    }

    /// The text from `(` at `open` to its matching `)`.
    private static func balancedCall(in text: String, openingAt open: String.Index) throws -> Substring {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return text[open...index] }
            default: break
            }
            index = text.index(after: index)
        }
        throw TestFailure("unbalanced parentheses after .systemLibrary in Package.swift")
    }

    /// The string literal after `label:` in a call.
    private static func stringArgument(_ label: String, in call: Substring) -> String? {
        guard let labelRange = call.range(of: "\(label):") else { return nil }
        let rest = call[labelRange.upperBound...].drop { $0 == " " }
        guard rest.first == "\"" else { return nil }
        return String(rest.dropFirst().prefix { $0 != "\"" })
    }

    /// The strings of every `.apt([...])` in a call.
    private static func aptProviders(in call: Substring) -> [String] {
        var providers: [String] = []
        var searchFrom = call.startIndex
        while let apt = call.range(of: ".apt([", range: searchFrom..<call.endIndex),
              let close = call.range(of: "]", range: apt.upperBound..<call.endIndex) {
            providers += quotedStrings(in: call[apt.upperBound..<close.lowerBound])
            searchFrom = close.upperBound
        }
        return providers
    }

    private static func quotedStrings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The string after each `keyword` at the start of a line (`link "event"`).
    private static func quotedStrings(afterEach keyword: String, in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard words.count == 2, words[0] == keyword else { return nil }
            return quotedStrings(in: words[1]).first
        }
    }
}
