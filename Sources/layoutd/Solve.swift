import ArgumentParser
import Foundation
import JSON
import LayoutAPI

/// `layoutd solve FILE|-`: solves one document and prints what `POST /v1/solve` answers.
///
/// It sends the document through `LayoutAPI.handle` as a `POST /v1/solve` request (the same code
/// path as the daemon, with the same limits by default), so the CLI and the HTTP API cannot
/// disagree: stdout is the response body, byte for byte, plus a newline.
struct Solve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Solve one layout document and print its frames, exactly as POST /v1/solve answers.",
        discussion: """
            Reads the document (JSON, see docs/http.md and the document format) from FILE, or from \
            standard input when FILE is -, solves it and prints the answer of POST /v1/solve on \
            one line: {"frames": {...}, "diagnostics": {"broken": [...], "ambiguous": [...], \
            "inactive": [...]}}. x and y are relative to the parent unless --coordinates absolute.

            An invalid document prints the API's application/problem+json body instead (the body \
            of its 400 for text that is not JSON, 422 for a document that is not valid, with a \
            JSON pointer per problem, 413 for a document over --max-body-bytes), and a short \
            summary on stderr. With --strict, a broken required constraint prints the 409 body.

            Exit status: 0 when the document was solved (broken or ambiguous constraints are \
            reported in diagnostics and still exit 0, unless --strict); 1 when the document is \
            invalid, when --strict finds a broken required constraint, or when FILE cannot be \
            read; 64 for a usage error.

            With --explain VIEW.ATTRIBUTE it prints instead why that attribute has its value: \
            the answer of GET /v1/sessions/{id}/explain (docs/http.md, "Explain"); an unknown view \
            or attribute prints that request's problem (404, 422) and exits 1.

            Examples:
              layoutd solve layout.json
              layoutd solve --explain label.top layout.json
              layoutd solve --coordinates absolute --pretty - < layout.json
            """
    )

    enum CoordinateSpace: String, ExpressibleByArgument, CaseIterable {
        case relative, absolute
    }

    @Argument(help: ArgumentHelp("The layout document (JSON), or - for standard input.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp(
        "relative: x and y relative to the parent view; absolute: relative to the root.",
        valueName: "relative|absolute"))
    var coordinates: CoordinateSpace = .relative

    @Flag(help: "Treat a broken required constraint as an error: print the 409 problem and exit 1.")
    var strict = false

    @Option(help: ArgumentHelp(
        "Print why VIEW's ATTRIBUTE has its value instead of the frames (the answer of GET /v1/sessions/{id}/explain).",
        valueName: "view.attribute"))
    var explain: String?

    @Flag(help: "Indent the JSON output for people (two spaces per level).")
    var pretty = false

    @Option(help: ArgumentHelp("Largest document accepted, in bytes (as the daemon's --max-body-bytes).",
                               valueName: "n"))
    var maxBodyBytes: Int = DaemonConfiguration().maxBodyBytes

    @Option(help: ArgumentHelp("Most views in the document (as the daemon's --max-views).", valueName: "n"))
    var maxViews: Int = DaemonConfiguration().maxViews

    @Option(help: ArgumentHelp("Most constraint entries in the document (as the daemon's --max-constraints).",
                               valueName: "n"))
    var maxConstraints: Int = DaemonConfiguration().maxConstraints

    /// The daemon's ranges for the same settings (DaemonConfiguration+Ranges.swift).
    func validate() throws {
        if let explain, Self.explainTarget(explain) == nil {
            throw ValidationError("--explain must be VIEW.ATTRIBUTE (e.g. label.top), not '\(explain)'")
        }
        for (flag, key, value) in [("--max-body-bytes", "maxBodyBytes", maxBodyBytes), ("--max-views", "maxViews", maxViews),
                                   ("--max-constraints", "maxConstraints", maxConstraints)] {
            if let range = DaemonConfiguration.ranges[key], !range.contains(Double(value)) {
                throw ValidationError("\(flag) must be \(range), not \(value)")
            }
        }
    }

    func run() throws {
        let source = file == "-" ? "<stdin>" : file
        guard let reply = reply(source: source) else { throw ExitCode.failure }
        // Written as it is, then the newline: a copy with the newline appended, and another into
        // a Data, would hold the answer three times over.
        if pretty, let value = try? JSONParser.parse(reply.body) {
            Self.writeToStandardOutput(Array(JSONWriter.prettyString(value).utf8))
        } else {
            Self.writeToStandardOutput(reply.body)
        }
        Self.writeToStandardOutput([UInt8(ascii: "\n")])
        if reply.status != 200 {
            writeToStandardError(Solve.summary(of: reply, source: source))
            throw ExitCode.failure
        }
    }

    /// The answer for the input, or nil (said on stderr) when it cannot be read. The input's bytes
    /// are let go of here, before the answer is written.
    private func reply(source: String) -> APIResponse? {
        let document: [UInt8]
        switch readInput() {
        case .success(let bytes):
            document = bytes
        case .failure(let error):
            writeToStandardError("layoutd solve: cannot read \(source): \(error.message)\n")
            return nil
        }
        let configuration = APIConfiguration(maxBodyBytes: maxBodyBytes, maxViews: maxViews, maxConstraints: maxConstraints)
        return explain.map { Solve.explanation(of: $0, document: document, strict: strict, configuration: configuration) }
            ?? Solve.answer(document: document, coordinates: coordinates, strict: strict, configuration: configuration)
    }

    /// All of `bytes` to stdout, retrying short writes and interruptions; another error (a closed
    /// pipe, when SIGPIPE is ignored) ends the writing.
    static func writeToStandardOutput(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }

    private func readInput() -> Result<[UInt8], InputError> {
        if file == "-" { return .success(Array(FileHandle.standardInput.readDataToEndOfFile())) }
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else { return .failure(InputError(String(cString: strerror(errno)))) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            return .failure(InputError("it is a directory"))
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        return .success(Array(handle.readDataToEndOfFile()))
    }

    /// The `X-Request-Id` of the request `solve` makes (and so the `requestId` of a problem it prints).
    static let requestID = "layoutd-solve"

    /// What `POST /v1/solve` answers for `document`, computed by the API itself.
    static func answer(document: [UInt8], coordinates: CoordinateSpace, strict: Bool,
                       configuration: APIConfiguration) -> APIResponse {
        var query: [String] = []
        if coordinates == .absolute { query.append("coordinates=absolute") }
        if strict { query.append("strict=true") }
        let api = LayoutAPI(configuration: configuration)
        // A fixed request id: the same input prints the same problem body (`requestId` included).
        return api.handle(APIRequest(method: "POST", path: "/v1/solve", query: query.joined(separator: "&"),
                                     headers: [("Content-Type", "application/json"), (RequestID.header, requestID)],
                                     body: document))
    }

    /// A few lines for stderr about a problem answer: title, status, detail, then each pointer.
    static func summary(of reply: APIResponse, source: String) -> String {
        guard let problem = try? JSONParser.parse(reply.body) else {
            return "layoutd solve: \(source): failed with status \(reply.status)\n"
        }
        let title = problem["title"]?.stringValue ?? "Failed"
        var text = "layoutd solve: \(source): \(title) (\(reply.status))"
        if let detail = problem["detail"]?.stringValue { text += ": \(detail)" }
        text += "\n"
        for error in problem["errors"]?.arrayValue ?? [] {
            let pointer = error["pointer"]?.stringValue ?? ""
            let code = error["code"]?.stringValue ?? ""
            let detail = error["detail"]?.stringValue ?? ""
            text += "  \(pointer.isEmpty ? "(document)" : pointer): \(detail) [\(code)]\n"
        }
        return text
    }
}

/// Why `layoutd solve` could not read its input (`strerror` text).
struct InputError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
