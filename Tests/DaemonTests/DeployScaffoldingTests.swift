import Foundation
import JSON
import Testing
import TestSupport

/// The files under deploy/ that are not nginx's (docs/deploy.md): the systemd unit, the Prometheus
/// alert rules and the Grafana dashboard, each checked by the tool that reads it, and every metric
/// the rules and the dashboard query present in a real daemon's /metrics.
@Suite("deploy scaffolding: systemd unit, alert rules, dashboard")
struct DeployScaffoldingTests {
    static func file(_ path: String) throws -> String {
        try String(contentsOf: EdgeNginx.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("deploy/systemd/layoutd.service: sandboxed, restarted on failure, a descriptor limit; systemd-analyze verify finds nothing to say")
    func systemdUnit() throws {
        let unit = try Self.file("deploy/systemd/layoutd.service")
        let lines = Set(unit.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for required in ["ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "ProtectHome=yes", "Restart=on-failure",
                         "StateDirectory=layoutd", "ReadWritePaths=/var/lib/layoutd /run/layoutd", "UMask=0077",
                         "Environment=LAYOUTD_LOCK_DIRECTORY=/run/layoutd", "ExecStart=/usr/local/bin/layoutd serve"] {
            #expect(lines.contains(required), "\(required) is missing")
        }
        #expect(lines.contains { $0.hasPrefix("LimitNOFILE=") })

        guard let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            print("deploy scaffolding: systemd-analyze is not installed: `systemd-analyze verify` of the unit is SKIPPED (the checks above ran)")
            return
        }
        // verify checks that ExecStart's program exists: the layoutd under test stands in for
        // /usr/local/bin/layoutd; the unit is otherwise the shipped one.
        let dir = try TemporaryDirectory()
        let unitPath = dir.url.appendingPathComponent("layoutd.service").path
        try unit.replacingOccurrences(of: "/usr/local/bin/layoutd", with: try LayoutdBinary.locate().path)
            .write(toFile: unitPath, atomically: true, encoding: .utf8)
        let verify = try MetricsTests.run(analyze, ["verify", unitPath])
        #expect(verify.status == 0 && verify.output.isEmpty, "systemd-analyze verify: \(verify.output)")
    }

    @Test("deploy/prometheus/alerts.yml passes promtool check rules and has the alerts the docs name")
    func alertRules() throws {
        let promtool = try MetricsTests.tool("promtool")
        let path = EdgeNginx.packageRoot.appendingPathComponent("deploy/prometheus/alerts.yml").path
        let check = try MetricsTests.run(promtool, ["check", "rules", path])
        #expect(check.status == 0 && check.output.contains("SUCCESS"), "promtool: \(check.output)")
        let text = try Self.file("deploy/prometheus/alerts.yml")
        for alert in ["LayoutdDown", "LayoutdServerErrors", "LayoutdStoreErrors", "LayoutdStoreCorrupt", "LayoutdSlowRequests", "LayoutdSessionLimitNear"] {
            #expect(text.contains("alert: \(alert)\n"), "\(alert) is missing")
        }
    }

    @Test("deploy/grafana/layoutd.json is valid JSON, and every metric it or the alert rules query is in a daemon's /metrics")
    func dashboardAndRulesQueryRealMetrics() throws {
        let dashboard = try JSONParser.parse(Array(try Self.file("deploy/grafana/layoutd.json").utf8))
        let panels = try #require(dashboard["panels"]?.arrayValue)
        #expect(panels.count >= 8)
        let expressions = panels.flatMap { $0["targets"]?.arrayValue ?? [] }.compactMap { $0["expr"]?.stringValue }
        #expect(expressions.count >= panels.count)

        // A daemon on a SQLite store with traffic (the store's series appear with a store).
        let dir = try TemporaryDirectory()
        let daemon = try Daemon(["--store", "sqlite:" + dir.url.appendingPathComponent("s.db").path])
        try MetricsTests.makeTraffic(daemon)
        let exposition = try daemon.connect().get("/metrics").text
        let present = Set(exposition.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.prefix { $0 != "{" && $0 != " " }) })

        let rules = Self.ruleExpressions(try Self.file("deploy/prometheus/alerts.yml"))
        #expect(rules.count >= 6)
        for (source, text) in [("dashboard", expressions.joined(separator: "\n")), ("alerts.yml", rules.joined(separator: "\n"))] {
            let names = Self.metricNames(in: text)
            #expect(!names.isEmpty)
            for name in names.sorted() {
                #expect(present.contains(name), "\(source) queries \(name), which /metrics does not have")
            }
        }
    }

    /// The `expr:` of each rule: its line and the lines indented under it (a `|` block).
    static func ruleExpressions(_ yaml: String) -> [String] {
        var out: [String] = [], current: (indent: Int, lines: [String])?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let block = current, !trimmed.isEmpty, indent <= block.indent {
                out.append(block.lines.joined(separator: "\n"))
                current = nil
            }
            if trimmed.hasPrefix("expr:") {
                current = (indent, [String(trimmed.dropFirst(5))])
            } else if current != nil {
                current?.lines.append(trimmed)
            }
        }
        if let block = current { out.append(block.lines.joined(separator: "\n")) }
        return out
    }

    /// The layoutd_ and process_ series names in PromQL text (`up` and recording rules, named with a
    /// colon, are Prometheus's own).
    static func metricNames(in text: String) -> Set<String> {
        var out = Set<String>(), current = ""
        for character in text + " " {
            if character.isLetter || character.isNumber || character == "_" || character == ":" {
                current.append(character)
                continue
            }
            if (current.hasPrefix("layoutd_") || current.hasPrefix("process_")) && !current.contains(":") { out.insert(current) }
            current = ""
        }
        return out
    }
}
