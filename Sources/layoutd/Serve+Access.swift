import Access
import ArgumentParser
import Foundation
import LayoutAPI
import Logging

/// Access control at start-up (docs/operations.md "Access control"): the keys file read, watched,
/// and read again on SIGHUP.
extension Serve {
    /// The keys of `settings.apiKeysFile`, or nil without one. A file that cannot be read or
    /// parsed stops the start (exit 64, naming FILE:LINE): a daemon that meant to check keys must
    /// never serve without them. Later, a malformed file keeps the keys last read (`KeyRing`),
    /// and the log says why.
    static func openKeys(_ settings: DaemonConfiguration, logger: Logger) throws -> KeyRing? {
        guard !settings.apiKeysFile.isEmpty else { return nil }
        let path = settings.apiKeysFile
        do throws(KeyFileError) {
            let keys = try KeyRing(path: path) { [logger] event in
                switch event {
                case .reloaded(let count):
                    logger.notice("API keys file \(path) read again: \(count) key(s)")
                case .rejected(let error):
                    logger.error("API keys file \(error): keeping the keys read before")
                case .unreadable(let path, let code):
                    logger.error("API keys file \(path) cannot be read (\(String(cString: strerror(code)))): keeping the keys read before")
                }
            }
            keys.startWatching()
            return keys
        } catch {
            throw ValidationError("--api-keys: \(error)")
        }
    }

    /// What the start-up line says about access control.
    static func accessSummary(_ settings: DaemonConfiguration, _ keys: KeyRing?) -> String {
        if let keys {
            return "access control: \(keys.count) key(s) of \(keys.tenants.count) tenant(s) from \(settings.apiKeysFile)"
        }
        return settings.allowAnonymous && !DaemonConfiguration.isLoopback(settings.host)
            ? "access control: none (--allow-anonymous: anyone who can connect may use every session)"
            : "access control: none (loopback only)"
    }
}
