import Foundation

/// SIGHUP, for operators and configuration managers that expect it: every action given runs on
/// each signal, in order, on a queue of its own (never an event loop). The daemon gives two: the
/// log file opened again (logrotate's `postrotate`, docs/operations.md "Logs") and the API keys
/// file read again (its watcher sees a change within a second anyway). Installed whenever the
/// daemon serves, so that a SIGHUP never ends it, with or without a log file or keys.
final class HangupSignal {
    private let source: DispatchSourceSignal

    init(_ actions: [@Sendable () -> Void]) {
        // The default action of SIGHUP ends the process: ignored first, then watched.
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "layoutd.sighup"))
        source.setEventHandler { for action in actions { action() } }
        source.resume()
    }

    func stop() { source.cancel() }
}
