import Synchronization

/// What a running server can tell its host about its connections, read from any thread
/// (`GET /metrics`). The workers count on their loops; a reader takes an atomic load, no lock.
public final class HTTPServerStatistics: Sendable {
    private let open = Atomic<Int>(0)

    public init() {}

    /// Connections accepted and not yet closed, over every worker (those being handed over to
    /// evhttp included).
    public var openConnections: Int { max(0, open.load(ordering: .relaxed)) }

    func connectionOpened() { open.add(1, ordering: .relaxed) }
    func connectionClosed() { open.subtract(1, ordering: .relaxed) }
}
