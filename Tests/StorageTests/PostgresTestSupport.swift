#if canImport(Glibc)
import Glibc
#endif
@testable import PostgresStorage
import Storage

/// The PostgreSQL server the tests may use (scripts/test starts a private one and sets
/// `LAYOUTD_TEST_POSTGRES` to its URL); nil: the PostgreSQL tests are not run.
let testPostgresURL: String? = getenv("LAYOUTD_TEST_POSTGRES").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }

/// A database of its own on the test server for one test (tests run in parallel, and the store's
/// tables have fixed names), dropped with everything in it when the value is released.
final class TestDatabase: @unchecked Sendable {
    let name: String
    let url: String
    private let admin: String

    init() throws {
        guard let base = testPostgresURL else { throw StorageError.unavailable("LAYOUTD_TEST_POSTGRES is not set") }
        admin = base
        name = "layoutd_test_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        url = Self.url(base, database: name)
        try Self.sql(base, "CREATE DATABASE \(name)")
    }

    deinit { _ = try? Self.sql(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

    /// Runs `statement` on a connection of its own to `url`; answers its rows as text.
    @discardableResult
    static func sql(_ url: String, _ statement: String) throws -> [[String?]] {
        try PostgresConnection(url: url, defaults: []).texts(statement)
    }

    /// Runs `statement` in this database.
    @discardableResult
    func sql(_ statement: String) throws -> [[String?]] { try Self.sql(url, statement) }

    /// `base` with its database name replaced by `database`.
    static func url(_ base: String, database: String) -> String {
        let query = base.firstIndex(of: "?").map { String(base[$0...]) } ?? ""
        let withoutQuery = base.firstIndex(of: "?").map { String(base[..<$0]) } ?? base
        let schemeEnd = withoutQuery.firstRange(of: "://")!.upperBound
        let path = withoutQuery[schemeEnd...].firstIndex(of: "/") ?? withoutQuery.endIndex
        return String(withoutQuery[..<path]) + "/" + database + query
    }
}
