import Foundation
import JSON
import Logging
import Primitives

/// How log lines are written: `text` (`2026-11-26T15:36:49.123Z info layoutd : message`) or
/// `json` (one JSON object per line, for log collectors).
enum LogFormat: String, CaseIterable, Sendable {
    case text, json
}

/// Where the daemon's log lines go: standard error, through a buffer that a thread of its own
/// writes out.
///
/// An access log line per request written with its own `write(2)` (and formatted by swift-log's
/// stream handler) cost about a third of a small request's CPU. Here a request only appends its
/// line to a buffer under a lock; the writer thread empties the buffer at least every
/// `flushInterval`, sooner when it holds `flushBytes`. Lines through `swift-log` (start-up, warnings,
/// errors: a few per run) are written at once, with everything buffered before them, so the log
/// keeps its order. `close()` writes what is left (the daemon calls it on every exit path,
/// SIGTERM included); a `kill -9` loses at most the last `flushInterval` of access lines.
final class LogSink: @unchecked Sendable {
    static let flushBytes = 64 << 10
    static let flushInterval = 0.5

    let format: LogFormat
    private let fd: Int32
    /// Guards `pending`, `stopping` and the timestamp cache; the writer waits on its condition.
    private let lock = PThreadLock()
    private var pending: [UInt8] = []
    private var stopping = false
    private var clock = WallClockText()
    /// Held while bytes are written, so that batches reach the descriptor in the order taken.
    private let writeLock = PThreadLock()
    private let done = DispatchSemaphore(value: 0)

    init(format: LogFormat, fd: Int32 = STDERR_FILENO) {
        self.format = format
        self.fd = fd
        pending.reserveCapacity(Self.flushBytes * 2)
        let thread = Thread { [self] in writeLoop() }
        thread.name = "layoutd-log"
        thread.start()
    }

    /// Appends one line: the timestamp first (text: `time level label : `; JSON: `{"time":…,`), then
    /// what `body` writes, then the end of the line. `now` writes it out before returning.
    func line(level: Logger.Level, label: String, now: Bool = false, _ body: (inout [UInt8]) -> Void) {
        lock.withLock {
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
            if pending.count >= Self.flushBytes { lock.signal() }
        }
        if now { flush() }
    }

    /// Writes everything appended so far.
    func flush() {
        writeLock.withLock {
            var batch: [UInt8] = []
            lock.withLock { swap(&batch, &pending) }
            writeAll(batch)
        }
    }

    /// Writes what is left and stops the writer thread; lines appended later are written at once.
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
            let stop = lock.withLock {
                if pending.count < Self.flushBytes && !stopping { lock.wait(seconds: Self.flushInterval) }
                return stopping
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

/// swift-log's handler for the daemon: lines in the sink's format, written at once.
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
                appendEscapedText(event.message.description, to: &out)
            case .json:
                out.append(contentsOf: #","message":"#.utf8)
                appendJSONString(event.message.description, to: &out)
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
