import Foundation

/// The parts of a Dockerfile the container image tests read: its stages, the packages each stage's
/// `apt-get install` lines name, and the final stage's `ENV` and `COPY`. No engine runs where the
/// tests run, so this is what stands in for `docker build` reading the file.
struct Dockerfile {
    struct Instruction {
        /// Upper-cased (`RUN`, `FROM`).
        var keyword: String
        /// Everything after the keyword, continuation lines joined with a space.
        var arguments: String
    }

    struct Stage {
        /// The image after `FROM`, `ARG` defaults substituted (`debian:bookworm-slim`).
        var image: String
        /// The name after `AS`, if any.
        var name: String?
        var instructions: [Instruction] = []

        /// Every package an `apt-get install` (or `apt install`) of a `RUN` of this stage names,
        /// flags left out, in order.
        var aptPackages: [String] {
            instructions.filter { $0.keyword == "RUN" }.flatMap { Dockerfile.aptPackages(inShell: $0.arguments) }
        }

        /// The `RUN` commands of this stage.
        var runs: [String] { instructions.filter { $0.keyword == "RUN" }.map(\.arguments) }

        /// `ENV` variables of this stage, in both forms (`ENV A=1 B=2` and `ENV A 1`).
        var environment: [String: String] {
            var result: [String: String] = [:]
            for instruction in instructions where instruction.keyword == "ENV" {
                let words = instruction.arguments.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                guard let first = words.first else { continue }
                if !first.contains("=") {
                    result[first] = words.dropFirst().joined(separator: " ")
                    continue
                }
                for word in words {
                    guard let equals = word.firstIndex(of: "=") else { continue }
                    result[String(word[..<equals])] = Dockerfile.unquoted(String(word[word.index(after: equals)...]))
                }
            }
            return result
        }

        /// (source in the build context, destination in the image) of each `COPY` that takes from the
        /// build context (not `--from=` another stage).
        var copiesFromContext: [(source: String, destination: String)] {
            instructions.filter { $0.keyword == "COPY" }.flatMap { instruction -> [(source: String, destination: String)] in
                let words = instruction.arguments.split(separator: " ").map(String.init)
                guard !words.contains(where: { $0.hasPrefix("--from=") }) else { return [] }
                let paths = words.filter { !$0.hasPrefix("--") }
                guard let destination = paths.last, paths.count >= 2 else { return [] }
                return paths.dropLast().map { (source: $0, destination: destination) }
            }
        }
    }

    /// `ARG` defaults given before the first `FROM` (the only ones a `FROM` line can use).
    var arguments: [String: String] = [:]
    var stages: [Stage] = []

    /// The stage named `build`.
    var buildStage: Stage? { stages.first { $0.name == "build" } }
    /// The image is what the last stage makes.
    var runtimeStage: Stage? { stages.last }

    init(_ text: String) {
        for line in Self.logicalLines(text) {
            let keyword = String(line.prefix { !$0.isWhitespace }).uppercased()
            let rest = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            let instruction = Instruction(keyword: keyword, arguments: rest)
            switch keyword {
            case "ARG" where stages.isEmpty:
                let assignment = rest.split(separator: "=", maxSplits: 1).map(String.init)
                if assignment.count == 2 { arguments[assignment[0]] = Self.unquoted(assignment[1]) }
            case "FROM":
                let words = rest.split(separator: " ").map(String.init).filter { !$0.hasPrefix("--platform") }
                let name = words.count >= 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(image: substituted(words.first ?? ""), name: name))
            default:
                if !stages.isEmpty { stages[stages.count - 1].instructions.append(instruction) }
            }
        }
    }

    /// `${NAME}` and `$NAME` replaced by the `ARG` defaults.
    func substituted(_ word: String) -> String {
        var result = word
        for (name, value) in arguments {
            result = result.replacingOccurrences(of: "${\(name)}", with: value).replacingOccurrences(of: "$\(name)", with: value)
        }
        return result
    }

    /// Instructions one per element: comment lines dropped, lines ending in `\` joined to the next.
    static func logicalLines(_ text: String) -> [String] {
        var lines: [String] = []
        var pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            // A comment inside a continued instruction is dropped too (Docker does the same).
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
                continue
            }
            let whole = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            if !whole.isEmpty { lines.append(whole) }
        }
        return lines
    }

    /// The packages of every `apt-get install` / `apt install` in a shell command line.
    static func aptPackages(inShell command: String) -> [String] {
        var packages: [String] = []
        // Commands are separated by && ; || and |: only words of an install command count.
        let separators = CharacterSet(charactersIn: "&;|")
        for part in command.components(separatedBy: separators) {
            let words = part.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let tool = words.firstIndex(where: { $0 == "apt-get" || $0 == "apt" }),
                  let install = words[tool...].firstIndex(of: "install") else { continue }
            packages += words[(install + 1)...].filter { !$0.hasPrefix("-") }.map(unquoted)
        }
        return packages
    }

    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == text.last, first == "\"" || first == "'" else { return text }
        return String(text.dropFirst().dropLast())
    }
}
