import Foundation
import JSON
import Logging
import Primitives

/// How log lines are written: `text` (`2026-11-26T15:36:49.123Z info layoutd : message`) or
/// `json` (one JSON object per line, for log collectors).
enum LogFormat: String, CaseIterable, Sendable {
    case text, json
}

/// Where the daemon's log lines go: standard error (the default) or a file (`--log-file`),
/// through a buffer that a thread of its own writes out.
///
/// An access log line per request written with its own `write(2)` (and formatted by swift-log's
/// stream handler) cost about a third of a small request's CPU. Here a request only appends its
/// line to a buffer under a lock; the writer thread empties the buffer at least every
/// `flushInterval`, sooner when it holds `flushBytes`. Lines through `swift-log` (start-up, warnings,
/// errors) wake the writer at once rather than write on the caller's thread: the caller may be an
/// event loop, and a log file on a slow or full disk must never stall one (issue 33). One buffer
/// for every line keeps the log in order. `close()` writes what is left (the daemon calls it on
/// every exit path, SIGTERM included); a `kill -9` loses at most the last `flushInterval` of lines.
///
/// With a file, `reopen()` (SIGHUP: logrotate's `postrotate`) opens the path again and moves the
/// writer to it between two batches: the renamed file gets no line after the reopen.
final class LogSink: @unchecked Sendable {
    static let flushBytes = 64 << 10
    static let flushInterval = 0.5
    /// Most bytes waiting for the writer: beyond, lines are dropped (and counted) rather than let a
    /// log that cannot be written (a stalled disk) take the process's memory.
    static let maxPendingBytes = 64 << 20

    let format: LogFormat
    /// The file lines go to; nil: standard error.
    let path: String?
    /// Guarded by `writeLock` (swapped by `reopen`).
    private var fd: Int32
    /// Guards `pending`, `urgent`, `stopping`, `dropped` and the timestamp cache; the writer waits on its condition.
    private let lock = PThreadLock()
    private var pending: [UInt8] = []
    /// A line asked to be written without waiting for the interval.
    private var urgent = false
    private var stopping = false
    /// Lines dropped since the writer last said so (`maxPendingBytes`).
    private var dropped = 0
    private var clock = WallClockText()
    /// Held while bytes are written, so that batches reach the descriptor in the order taken.
    private let writeLock = PThreadLock()
    private let done = DispatchSemaphore(value: 0)

    /// Lines to standard error, or to the file at `path` (appended to; made 0640 if missing).
    /// Throws `LogFileError` when the file cannot be opened.
    init(format: LogFormat, path: String? = nil) throws(LogFileError) {
        self.format = format
        self.path = path
        if let path {
            fd = try Self.open(path)
        } else {
            fd = STDERR_FILENO
        }
        pending.reserveCapacity(Self.flushBytes * 2)
        let thread = Thread { [self] in writeLoop() }
        thread.name = "layoutd-log"
        thread.start()
    }

    private static func open(_ path: String) throws(LogFileError) -> Int32 {
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw LogFileError(path: path, code: errno) }
        return fd
    }

    /// Opens `path` again (after logrotate renamed it) and sends the next lines there; what was
    /// buffered before goes to the old file first. Nil when done (or without a file), else why not:
    /// then the old descriptor is kept, so no line is lost.
    func reopen() -> LogFileError? {
        guard let path else { return nil }
        let fresh: Int32
        do throws(LogFileError) { fresh = try Self.open(path) } catch { return error }
        writeLock.withLock {
            var batch: [UInt8] = []
            lock.withLock { swap(&batch, &pending) }
            writeAll(batch)
            let old = fd
            fd = fresh
            Foundation.close(old)
        }
        return nil
    }

    /// Appends one line: the timestamp first (text: `time level label : `; JSON: `{"time":…,`), then
    /// what `body` writes, then the end of the line. `now` wakes the writer at once (the line is
    /// written within a moment, on the writer's thread, never on the caller's).
    func line(level: Logger.Level, label: String, now: Bool = false, _ body: (inout [UInt8]) -> Void) {
        enqueue(now: now) { pending in
            if format == .json { pending.append(contentsOf: #"{"time":""#.utf8) }
            clock.append(to: &pending)
            switch format {
            case .text:
                pending.append(0x20)
                pending.append(contentsOf: level.rawValue.utf8)
                pending.append(0x20)
                pending.append(contentsOf: label.utf8)
                pending.append(contentsOf: " : ".utf8)
                body(&pending)
                pending.append(0x0A)
            case .json:
                pending.append(contentsOf: #"","level":""#.utf8)
                pending.append(contentsOf: level.rawValue.utf8)
                pending.append(contentsOf: #"","logger":"#.utf8)
                appendJSONString(label, to: &pending)
                body(&pending)
                pending.append(contentsOf: "}\n".utf8)
            }
        }
    }

    /// A line that is one message: escaped text after the prefix, or `"message"` in JSON.
    func message(level: Logger.Level, label: String = "layoutd", now: Bool = true, _ text: String) {
        line(level: level, label: label, now: now) { out in appendMessage(text, to: &out) }
    }

    /// The message part of a line in the sink's format (after the prefix, before any metadata).
    func appendMessage(_ text: String, to out: inout [UInt8]) {
        switch format {
        case .text: appendEscapedText(text, to: &out)
        case .json:
            out.append(contentsOf: #","message":"#.utf8)
            appendJSONString(text, to: &out)
        }
    }

    /// A start-up line whatever the log level (`layoutd listening on …`, `layoutd: error: …`):
    /// as `text` itself in the text format (scripts read these lines as they are), as a JSON line
    /// with `message` in the JSON format (every line of a JSON log is JSON, issue 33). Woken at once.
    func startup(level: Logger.Level, text: String, message: String) {
        guard format == .text else { return self.message(level: level, message) }
        enqueue(now: true) { pending in
            pending.append(contentsOf: text.utf8)
            pending.append(0x0A)
        }
    }

    /// Appends bytes under the lock (unless `maxPendingBytes` are waiting: then the line is dropped
    /// and counted) and wakes the writer when `now` or a batch is full. After `close()` (the last
    /// lines of an exit, no event loop left) a `now` line is written here.
    private func enqueue(now: Bool, _ write: (inout [UInt8]) -> Void) {
        let writerGone = lock.withLock { () -> Bool in
            guard pending.count < Self.maxPendingBytes else {
                dropped += 1
                return false
            }
            write(&pending)
            if now { urgent = true }
            if now || pending.count >= Self.flushBytes { lock.signal() }
            return stopping
        }
        if now && writerGone { flush() }
    }

    /// Writes everything appended so far, on the caller's thread (exit paths only).
    func flush() {
        writeLock.withLock {
            var batch: [UInt8] = []
            lock.withLock { swap(&batch, &pending) }
            writeAll(batch)
        }
    }

    /// Writes what is left and stops the writer thread; `now` lines appended later are written at once.
    func close() {
        let first = lock.withLock {
            defer { stopping = true; lock.signal() }
            return !stopping
        }
        if first { done.wait() }
        flush()
    }

    private func writeLoop() {
        while true {
            let (stop, lost) = lock.withLock {
                if pending.count < Self.flushBytes && !stopping && !urgent { lock.wait(seconds: Self.flushInterval) }
                urgent = false
                defer { dropped = 0 }
                return (stopping, dropped)
            }
            if lost > 0 {
                message(level: .warning, now: false,
                        "\(lost) log line(s) dropped: the log could not be written as fast as lines came")
            }
            flush()
            if stop { break }
        }
        done.signal()
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}

/// The log file could not be opened: `path` and the system's reason.
struct LogFileError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot open the log file \(path): \(String(cString: strerror(code)))" }
}

/// `2026-11-26T15:36:49.123Z` for the current wall-clock time (UTC). The part up to the seconds is
/// formatted once a second.
struct WallClockText {
    private var second = -1
    private var prefix: [UInt8] = []

    mutating func append(to out: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if now.tv_sec != second {
            second = now.tv_sec
            var t = time_t(now.tv_sec)
            var parts = tm()
            gmtime_r(&t, &parts)
            let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                              Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            prefix = Array(text.utf8)
        }
        out.append(contentsOf: prefix)
        let millis = now.tv_nsec / 1_000_000
        out.append(UInt8(ascii: "0") + UInt8(millis / 100))
        out.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(millis % 10))
        out.append(UInt8(ascii: "Z"))
    }
}

/// `text` as a JSON string literal.
func appendJSONString(_ text: String, to out: inout [UInt8]) {
    var writer = JSONWriter(capacity: text.utf8.count + 2)
    writer.appendString(text)
    out.append(contentsOf: writer.bytes)
}

/// swift-log's handler for the daemon: lines in the sink's format, the writer woken at once.
struct SinkLogHandler: LogHandler {
    let sink: LogSink
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        sink.line(level: event.level, label: label, now: true) { out in
            switch sink.format {
            case .text:
                for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                    out.append(contentsOf: "\(key)=\(value) ".utf8)
                }
                sink.appendMessage(event.message.description, to: &out)
            case .json:
                sink.appendMessage(event.message.description, to: &out)
                for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                    out.append(0x2C)
                    appendJSONString(key, to: &out)
                    out.append(0x3A)
                    appendJSONString(value.description, to: &out)
                }
            }
        }
    }
}

/// `text` with control characters percent-escaped (`%0A`), so that no request can write a line of
/// its own into a text log.
func appendEscapedText(_ text: String, to out: inout [UInt8]) {
    // The usual text (a path, an id) has no control character: appended in one copy.
    let plain = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return false }
        out.append(contentsOf: bytes)
        return true
    }
    if plain == true { return }
    for byte in text.utf8 {
        if byte < 0x20 || byte == 0x7F {
            let hex = Array("0123456789ABCDEF".utf8)
            out.append(UInt8(ascii: "%"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        } else {
            out.append(byte)
        }
    }
}
