import EventHTTP
import Foundation
import Logging

/// One log line per request: method, path, status, duration (the time spent producing the
/// answer), e.g. `GET /healthz 200 0.041ms`.
enum AccessLog {
    /// `respond` with a log line after each answer; `respond` itself when the logger drops `info`
    /// (then a request costs no clock reads and no status string).
    static func wrap(_ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse, logger: Logger) -> HTTPHandler {
        guard logger.logLevel <= .info else { return respond }
        return { request in
            let started = DispatchTime.now().uptimeNanoseconds
            let response = respond(request)
            if let work = response.offload {
                // Logged when the work is done, with the time it waited for a thread.
                return .offloaded { logged(work(), for: request, started: started, logger: logger) }
            }
            return logged(response, for: request, started: started, logger: logger)
        }
    }

    private static func logged(_ response: HTTPResponse, for request: HTTPRequest, started: UInt64,
                               logger: Logger) -> HTTPResponse {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- started
        let status = response.stream == nil ? "\(response.status)" : "\(response.status) (stream)"
        logger.info("\(request.method) \(request.path) \(status) \(formatMilliseconds(nanoseconds: elapsed))")
        return response
    }

    /// `1234567` ns → `"1.235ms"`.
    static func formatMilliseconds(nanoseconds: UInt64) -> String {
        let micros = (nanoseconds + 500) / 1000
        let fraction = String(micros % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)ms"
    }
}
