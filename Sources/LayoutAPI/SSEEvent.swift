/// One Server-Sent Event, encoded once and shared by every subscriber it goes to.
///
/// A revision's event is the same bytes for every subscriber of the same coordinate system:
/// encoding it per subscriber (as it was) cost the worker 374 ms per PATCH with 600 subscribers
/// of a 300-view form (~11 KB events), and every not-yet-sent copy was a copy. Now `bytes` is
/// made once per revision and kind; the transport sends it by reference (EventHTTP's
/// `HTTPStream.send` adds the array's storage to the connection's buffer without copying), so a
/// subscriber's backlog is references to shared events.
public final class SSEEvent: Sendable {
    /// The `event:` line's value, or nil.
    public let event: String?
    /// The `id:` line's value, or nil.
    public let id: String?
    /// The `data:` payload (one line or several).
    public let data: String
    /// The `retry:` line's value (milliseconds the client should wait before it reconnects), or nil.
    public let retry: Int?
    /// The event on the wire: `event:`, `id:`, `retry:`, one `data:` line per line of `data`, a
    /// blank line.
    public let bytes: [UInt8]

    public init(data: String, event: String? = nil, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.id = id
        self.data = data
        self.retry = retry
        var out: [UInt8] = []
        out.reserveCapacity(data.utf8.count + 40)
        if let event { Self.field("event", event, to: &out) }
        if let id { Self.field("id", id, to: &out) }
        if let retry { Self.field("retry", String(max(0, retry)), to: &out) }
        // JSON payloads are one line (the writer escapes newlines); other text is split at LF,
        // a CR before it dropped, as the SSE format needs one `data:` line per line.
        var line: [UInt8] = []
        for byte in data.utf8 {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                Self.field("data", line, to: &out)
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        if line.last == 0x0D { line.removeLast() }
        Self.field("data", line, to: &out)
        out.append(0x0A)
        bytes = out
    }

    /// `name: value\n`; CR and LF in a one-line field (event, id) become spaces.
    private static func field(_ name: String, _ value: String, to out: inout [UInt8]) {
        field(name, value.utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, to: &out)
    }

    private static func field(_ name: String, _ value: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: [0x3A, 0x20])
        out.append(contentsOf: value)
        out.append(0x0A)
    }
}
