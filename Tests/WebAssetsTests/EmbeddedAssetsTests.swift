import Foundation
import Testing
import WebAssets

/// The strings the daemon serves are clients/js/ as it is in the repository: an edit of a file
/// without `clients/js/generate-assets` fails here, naming the file and the fix.
@Suite("The embedded web assets are the files of clients/js/, byte for byte")
struct EmbeddedAssetsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func file(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("clients/js").appendingPathComponent(name), encoding: .utf8)
    }

    @Test("the page, its script and the client equal clients/js/playground.html, playground.js and layoutd.js")
    func equalFiles() throws {
        for (embedded, name) in [(WebAssets.playgroundHTML, "playground.html"), (WebAssets.playgroundJS, "playground.js"),
                                 (WebAssets.clientJS, "layoutd.js")] {
            #expect(embedded == (try Self.file(name)),
                    "Sources/WebAssets/WebAssets.swift is out of date for clients/js/\(name): run clients/js/generate-assets")
        }
    }

    @Test("clients/js/generate-assets --check finds the generated file up to date")
    func generatorCheck() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("clients/js/generate-assets").path, "--check"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "clients/js/generate-assets --check: \(message)")
    }

    @Test("the playground's policy allows only what the page loads: its own scripts, no inline code but <style>")
    func policyFitsThePage() {
        #expect(WebAssets.playgroundHTML.contains("<script type=\"module\" src=\"./playground.js\"></script>"))
        #expect(!WebAssets.playgroundHTML.contains("<script>"))
        #expect(WebAssets.playgroundPolicy.contains("script-src 'self';"))
        #expect(!WebAssets.playgroundPolicy.contains("unsafe-eval"))
        #expect(WebAssets.picturePolicy == "default-src 'none'; style-src 'unsafe-inline'")
    }
}
