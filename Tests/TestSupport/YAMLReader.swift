import Foundation

/// Reads YAML with PyYAML (`yaml.safe_load`, the reader scripts/generate-openapi and most Python
/// tools use) and answers the value as JSON text, so that a test can compare what a YAML writer
/// wrote with the JSON it was made from. Needs python3 with PyYAML (scripts/lib/deps.sh).
public enum YAMLReader {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func jsonText(ofYAML yaml: String) throws -> String {
        // Through a file: the YAML and the JSON may each be larger than a pipe's buffer.
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("yaml-reader-\(getpid())-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import json, sys, yaml
            with open(sys.argv[1], encoding="utf-8") as f:
                value = yaml.safe_load(f)
            sys.stdout.write(json.dumps(value, ensure_ascii=False))
            """, file.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let json = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "yaml.safe_load failed: " + String(decoding: message, as: UTF8.self))
        }
        return String(decoding: json, as: UTF8.self)
    }
}
