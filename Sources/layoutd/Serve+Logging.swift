import Foundation

extension Serve {
    /// The log format a configuration error is written in, when the settings as a whole do not
    /// resolve: the first source that names a valid one, from the strongest (the flag, the
    /// environment, then the file's `logFormat`, read leniently); text otherwise. So a daemon told
    /// to log JSON says even that its other settings are wrong in JSON.
    func earlyLogFormat(environment: [String: String] = ProcessInfo.processInfo.environment) -> LogFormat {
        if let format = logFormat.flatMap(LogFormat.init(rawValue:)) { return format }
        if let format = environment["LAYOUTD_LOG_FORMAT"].flatMap(LogFormat.init(rawValue:)) { return format }
        let file = config ?? environment["LAYOUTD_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        if let file, let data = FileManager.default.contents(atPath: file),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let format = (object["logFormat"] as? String).flatMap(LogFormat.init(rawValue:)) {
            return format
        }
        return .text
    }
}
