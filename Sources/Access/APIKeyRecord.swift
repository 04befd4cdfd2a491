/// One line of the keys file: a key's name, its tenant, the SHA-256 of the key (never the key),
/// and what it may do.
public struct APIKeyRecord: Sendable, Equatable {
    /// Shown in `keys list`, the access log and stream tokens; not secret.
    public var name: String
    /// The namespace of the sessions the key creates and may reach.
    public var tenant: String
    /// SHA-256 of the key's UTF-8 bytes (32 bytes).
    public var digest: [UInt8]
    /// GET, HEAD, events and render only.
    public var readOnly: Bool
    /// May read /metrics.
    public var metrics: Bool
    /// The most sessions the key's tenant may hold; nil for no cap of its own.
    public var maxSessions: Int?
    /// Requests a second (a token bucket with a burst of the same size); nil for no limit.
    public var rate: Double?

    public init(name: String, tenant: String, digest: [UInt8], readOnly: Bool = false, metrics: Bool = false,
                maxSessions: Int? = nil, rate: Double? = nil) {
        self.name = name
        self.tenant = tenant
        self.digest = digest
        self.readOnly = readOnly
        self.metrics = metrics
        self.maxSessions = maxSessions
        self.rate = rate
    }
}

/// What is wrong with a keys file, at which line (1-based; 0 when the file as a whole cannot be
/// read). Its text never holds a key: a field that looks like one is not quoted.
public struct KeyFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let line: Int
    public let message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `keys.txt:3: unknown field 'rat=5'`, as compilers name a line.
    public var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
}
