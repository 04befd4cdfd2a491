import Foundation
import Testing

/// clients/js as a package a front-end team installs: its manifest, its declarations in step with the
/// document's JSON Schema and the OpenAPI description, and the declarations compiled by TypeScript
/// (Debian's node-typescript): a typed example compiles, misspelt documents and patches do not.
@Suite("The JS client package: manifest, declarations in step with the schema, compiled by tsc")
struct ClientPackageTests {
    static let root = EmbeddedAssetsTests.root
    static let clients = root.appendingPathComponent("clients/js")

    /// `tsc` on PATH. CI sets LAYOUTD_REQUIRE_TSC=1 (.ci/run installs node-typescript): there a
    /// missing tsc fails the compile tests instead of skipping them.
    static let tsc: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/tsc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static let tscRequired = ProcessInfo.processInfo.environment["LAYOUTD_REQUIRE_TSC"] == "1"

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = root
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    static func compile(_ file: String) throws -> (status: Int32, output: String) {
        let tsc = try #require(Self.tsc, "tsc is missing (LAYOUTD_REQUIRE_TSC=1): apt-get install node-typescript")
        return try run([tsc, "--strict", "--noEmit", "--pretty", "false", "--target", "es2020", "--module", "es2020",
                        "--moduleResolution", "node", "--lib", "es2020,dom", file])
    }

    @Test("package.json names the module, its types and its files, with no dependencies")
    func manifest() throws {
        let data = try Data(contentsOf: Self.clients.appendingPathComponent("package.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["name"] as? String == "layoutd")
        #expect((json["version"] as? String)?.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil)
        #expect(json["type"] as? String == "module")
        #expect(json["types"] as? String == "./layoutd.d.ts")
        let exports = try #require((json["exports"] as? [String: Any])?["."] as? [String: String])
        #expect(exports["types"] == "./layoutd.d.ts" && exports["default"] == "./layoutd.js")
        #expect(json["files"] as? [String] == ["layoutd.js", "layoutd.d.ts"])
        for key in ["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"] {
            #expect(json[key] == nil, "package.json has \(key)")
        }
        for file in ["layoutd.js", "layoutd.d.ts"] {
            #expect(FileManager.default.fileExists(atPath: Self.clients.appendingPathComponent(file).path))
        }
    }

    @Test("layoutd.d.ts declares every member and enum of the document schema and the answers (clients/js/check-types)")
    func declarationsMatchTheSchema() throws {
        let result = try Self.run(["python3", "clients/js/check-types"])
        #expect(result.status == 0, "clients/js/check-types:\n\(result.output)")
    }

    @Test("the declarations export the client, the error, applyFrames and the document, patch and answer types")
    func exports() throws {
        let text = try String(contentsOf: Self.clients.appendingPathComponent("layoutd.d.ts"), encoding: .utf8)
        for name in ["class Layoutd", "class LayoutdError", "function applyFrames", "interface LayoutDocument",
                     "type LayoutPatch", "interface Frame ", "interface SolveResult", "interface Session ",
                     "interface PatchResult", "interface SessionFrames", "interface Diagnostics", "interface Problem "] {
            #expect(text.contains("export \(name)"), "layoutd.d.ts does not export \(name)")
        }
        let script = try String(contentsOf: Self.clients.appendingPathComponent("layoutd.js"), encoding: .utf8)
        for name in ["export class Layoutd", "export class LayoutdError", "export function applyFrames", "export function sseParser"] {
            #expect(script.contains(name), "layoutd.js lacks \(name)")
        }
    }

    @Test("a typed example using every document form compiles with tsc --strict",
          .enabled(if: tsc != nil || tscRequired, "tsc is not installed (apt-get install node-typescript)"))
    func typedExampleCompiles() throws {
        let result = try Self.compile("clients/js/examples/typed.ts")
        #expect(result.status == 0, "tsc refused clients/js/examples/typed.ts:\n\(result.output)")
    }

    @Test("misspelt fields, view fields, attributes, priorities and entry fields fail to compile, each at its line",
          .enabled(if: tsc != nil || tscRequired, "tsc is not installed (apt-get install node-typescript)"))
    func misspeltExampleIsRefused() throws {
        let result = try Self.compile("Tests/Fixtures/typescript/misspelt.ts")
        #expect(result.status != 0, "tsc accepted misspelt documents")
        let lines = Set(result.output.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("Tests/Fixtures/typescript/misspelt.ts("), line.contains("error TS") else { return nil }
            return Int(line.dropFirst("Tests/Fixtures/typescript/misspelt.ts(".count).prefix { $0.isNumber })
        })
        #expect(lines == [4, 5, 6, 7, 8], "errors at lines \(lines.sorted()):\n\(result.output)")
        for word in ["widht", "hiden", "a.centerx", "hihg", "constnat"] {
            #expect(result.output.contains(word), "no error names \(word)")
        }
    }
}
