@testable import EventHTTP
import Foundation
import Testing
import TestSupport

/// What `layoutd serve` checks of libevent before it binds (EventHTTP's `LibeventInternals`): the
/// version its use of libevent's internals was written for, probes on real requests, and that a
/// check that does not hold stops the start with a message rather than a warning.
@Suite("libevent start-up check: the version written for, probes on real requests, a failure stops serve")
struct LibeventStartupCheckTests {
    private static let libevent2_1_12: UInt32 = 0x0201_0C00

    @Test("2.1.8 up to the last 2.1 release is accepted, headers and library alike")
    func acceptedVersions() {
        for version: UInt32 in [0x0201_0800, Self.libevent2_1_12, 0x0201_0D00, 0x0201_FF00] {
            #expect(LibeventInternals.judgeVersion(loaded: version, compiledAgainst: Self.libevent2_1_12) == .accepted,
                    "\(LibeventInternals.versionText(version))")
        }
        #expect(LibeventInternals.versionText(Self.libevent2_1_12) == "2.1.12")
    }

    @Test("2.0, 2.1 before 2.1.8 and 2.2 are refused, naming the version found and the versions accepted",
          arguments: [(UInt32(0x0200_1600), "2.0.22"), (0x0201_0700, "2.1.7"), (0x0202_0100, "2.2.1"), (0x0300_0000, "3.0.0")])
    func refusedLibrary(version: UInt32, text: String) {
        let verdict = LibeventInternals.judgeVersion(loaded: version, compiledAgainst: Self.libevent2_1_12)
        guard case .refused(let message) = verdict else {
            Issue.record("libevent \(text) was accepted")
            return
        }
        #expect(message.contains("the libevent loaded is \(text)"), "\(message)")
        #expect(message.contains(LibeventInternals.acceptedVersionsText), "\(message)")
    }

    @Test("a library of 2.1 is refused when the headers compiled against were another version's")
    func refusedHeaders() {
        let verdict = LibeventInternals.judgeVersion(loaded: Self.libevent2_1_12, compiledAgainst: 0x0202_0100)
        guard case .refused(let message) = verdict else {
            Issue.record("headers of 2.2.1 were accepted")
            return
        }
        #expect(message.contains("compiled against the headers of libevent 2.2.1"), "\(message)")
    }

    @Test("this machine's libevent passes the version check and the request-field probe on real requests")
    func thisLibeventHolds() {
        #expect(LibeventInternals.requestFieldsProblem() == nil)
        let check = LibeventInternals.startupCheck(requireErrorReplyOverride: false)
        #expect(check.holds, "\(check.message)")
        #expect(check.held == [.version, .requestFields])
        #expect(check.message.hasPrefix("libevent \(LibeventInternals.loadedVersion): version, request-fields checked"))
    }

    @Test("without the evhttp_send_error override (the test binaries), a check that requires it fails, naming libevent's version and the HTML replies")
    func errorRepliesWithoutOverride() {
        let check = LibeventInternals.startupCheck(requireErrorReplyOverride: true)
        #expect(!check.holds)
        #expect(check.held == [.version, .requestFields])
        #expect(check.errorReplyContentType?.hasPrefix("text/html") == true)
        #expect(check.message.hasPrefix("libevent \(LibeventInternals.loadedVersion) does not hold what layoutd relies on: "
                                        + "error replies: libevent answers the requests it rejects by itself with text/html"),
                "\(check.message)")
    }

    @Test("the test switch only adds failures: the named check fails, a name of no check fails too, an empty value is ignored")
    func forcedFailures() {
        let variable = LibeventInternals.forcedFailureVariable
        let forced = LibeventInternals.startupCheck(requireErrorReplyOverride: false, environment: [variable: "request-fields"])
        #expect(forced.held == [.version])
        #expect(forced.failures == ["the request-fields check was made to fail by \(variable)"])
        let unknown = LibeventInternals.startupCheck(requireErrorReplyOverride: false, environment: [variable: "layout"])
        #expect(unknown.failures.first?.contains("\(variable)=layout names no check (version, request-fields, error-replies)") == true,
                "\(unknown.failures)")
        #expect(LibeventInternals.startupCheck(requireErrorReplyOverride: false, environment: [variable: ""]).holds)
    }

    @Test("layoutd serve exits 1 before it binds when a check does not hold, naming the libevent version and the check",
          arguments: ["version", "request-fields", "error-replies"])
    func serveRefusesToStart(check: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        environment[LibeventInternals.forcedFailureVariable] = check
        let result = try LayoutdBinary.run(["serve", "--port", "0", "--threads", "1"], environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("layoutd: error: libevent \(LibeventInternals.loadedVersion) does not hold what layoutd relies on: "
                                       + "the \(check) check was made to fail"), "\(result.stderr)")
        #expect(!result.stderr.contains("listening on"))
    }

    @Test("a daemon that starts says which libevent it checked and what held")
    func startupLine() throws {
        let daemon = try Daemon()
        let expected = "libevent \(LibeventInternals.loadedVersion): version, request-fields, error-replies checked"
        #expect(eventually(timeout: 5) { daemon.stderr.contains(expected) }, "\(daemon.stderr)")
    }
}
