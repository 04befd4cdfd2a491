import ArgumentParser
import Foundation

/// `layoutd probe`: GET a path of a running daemon (by default its `/readyz`) and exit 0 on a 200.
///
/// The container image's `HEALTHCHECK`: the slim runtime image has no curl, and installing it for
/// one request would add a dozen packages. The port comes from the same settings `serve` reads
/// (configuration file, environment, flags), so the check follows `LAYOUTD_PORT` without being told.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask a running daemon whether it is ready (GET /readyz); exit 0 on 200, 1 otherwise.",
        discussion: """
            The address is the one `layoutd serve` would listen on with the same configuration file, \
            environment and --host/--port (an unspecified address, 0.0.0.0 or ::, is asked on \
            the loopback address). Used by the container image's HEALTHCHECK.
            """)

    @Option(help: ArgumentHelp("Path to GET.", valueName: "path"))
    var path = "/readyz"

    @Option(help: ArgumentHelp("Address to ask. Default: the serve settings' host.", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("Port to ask. Default: the serve settings' port.", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("Configuration file, as for serve. Default: $LAYOUTD_CONFIG.", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "seconds"))
    var timeoutSeconds: Double = 2

    /// `Int(1e300)` trapped on the way to a `timeval` (issue 27): the same range as the daemon's time-outs.
    func validate() throws {
        let range = SettingRange.seconds(above: 0, upTo: DaemonConfiguration.oneDay)
        guard range.contains(timeoutSeconds) else {
            throw ValidationError("--timeout-seconds must be \(range), not \(SettingRange.show(timeoutSeconds))")
        }
    }

    func run() throws {
        let settings: DaemonConfiguration
        do {
            settings = try Serve.parse(config.map { ["--config", $0] } ?? []).resolvedSettings()
        } catch let error as ConfigurationError {
            throw ValidationError(error.message)
        }
        var address = host ?? settings.host
        if address == "0.0.0.0" || address.isEmpty { address = "127.0.0.1" }
        if address == "::" { address = "::1" }
        let target = port ?? settings.port
        switch Self.get(host: address, port: target, path: path, timeout: timeoutSeconds) {
        case .success(let status) where status == 200:
            print("layoutd probe: http://\(address):\(target)\(path) answered \(status)")
        case .success(let status):
            writeToStandardError("layoutd probe: http://\(address):\(target)\(path) answered \(status)\n")
            throw ExitCode.failure
        case .failure(let why):
            writeToStandardError("layoutd probe: http://\(address):\(target)\(path): \(why.message)\n")
            throw ExitCode.failure
        }
    }

    struct Failure: Error { let message: String }

    /// The status of `GET path` over a plain HTTP/1.1 connection (closed after the answer).
    static func get(host: String, port: Int, path: String, timeout: Double) -> Result<Int, Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            return .failure(Failure(message: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard fd >= 0 else { return .failure(Failure(message: "socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(message: "connect: \(String(cString: strerror(errno)))"))
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\nUser-Agent: layoutd-probe\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            return .failure(Failure(message: "send: \(String(cString: strerror(errno)))"))
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(UInt8(ascii: "\n")) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                return .failure(Failure(message: n == 0 ? "closed without an answer" : "no answer: \(String(cString: strerror(errno)))"))
            }
            received += buffer[0..<n]
        }
        // "HTTP/1.1 200 OK"
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(Failure(message: "not an HTTP answer: \(line)"))
        }
        return .success(status)
    }
}
