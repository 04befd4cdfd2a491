#if canImport(Glibc)
import Glibc
#endif
import Storage

/// The database's tables, created or migrated when a store opens (`PRAGMA user_version` is the
/// schema's version), and the cheap checks that a file is a whole SQLite database before SQLite
/// reads it.
///
/// A session's row is small; its snapshot lives in its own table so that no write of the row
/// rewrites the document (an updated row is written whole, blobs included). Patches are keyed by
/// (session key, revision), so a load reads them in order, in a WITHOUT ROWID table: one b-tree
/// instead of a table and its primary-key index. An append inserts its patch and, most of the time,
/// nothing else: one page for the commit to write. The row's `revision`, `patch_count`,
/// `patch_bytes` and `last_used` are as of the row's last write (create, replace, snapshot, touch,
/// a change of delegate memory, and an append at most once a second); the session's revision is
/// its last patch's (or its snapshot's), and its last use at most a second later than the row's.
enum SQLiteSchema {
    /// 2: the write id (`WriteChain`) of the row's revision and of each patch.
    static let version = 2

    static let create = """
        CREATE TABLE meta (
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE sessions (
            key INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            generation INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            snapshot_revision INTEGER NOT NULL,
            snapshot_bytes INTEGER NOT NULL,
            patch_count INTEGER NOT NULL,
            patch_bytes INTEGER NOT NULL,
            delegates BLOB NOT NULL,
            last_used REAL NOT NULL,
            write_id INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE snapshots (
            key INTEGER PRIMARY KEY,
            document BLOB NOT NULL
        );
        CREATE TABLE patches (
            key INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            patch BLOB NOT NULL,
            write_id INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (key, revision)
        ) WITHOUT ROWID;
        """

    /// Creates the tables in a new database, checks an existing one's version and tables.
    static func prepare(_ c: SQLiteConnection, now: Double) throws(StorageError) {
        let found = try c.integer("PRAGMA user_version")
        if found > version {
            throw .unavailable("\(c.path) has schema version \(found), written by a newer layoutd (this one knows \(version))")
        }
        if found == 0 {
            if try c.integer("SELECT count(*) FROM sqlite_schema") != 0 {
                throw .corrupt(path: c.path, detail: "it holds tables but no layoutd schema version (not a layoutd session store?)")
            }
            try c.execute("BEGIN IMMEDIATE")
            do {
                try c.execute(create)
                try c.execute("INSERT INTO meta VALUES ('last_generation', \(initialGeneration(now: now)))")
                try c.execute("PRAGMA user_version = \(version)")
                try c.execute("COMMIT")
            } catch {
                c.rollbackIfNeeded()
                throw error
            }
            return
        }
        let tables = Set(try c.texts("SELECT name FROM sqlite_schema WHERE type = 'table'"))
        for table in ["meta", "sessions", "snapshots", "patches"] where !tables.contains(table) {
            throw .corrupt(path: c.path, detail: "the table '\(table)' of schema version \(found) is missing")
        }
        // Migrations from older versions, one step each, in a transaction.
        if found < 2 {
            // Write ids start at 0 for the sessions already stored: every node reads the same 0
            // and chains on from it.
            try c.execute("BEGIN IMMEDIATE")
            do {
                try c.execute("""
                    ALTER TABLE sessions ADD COLUMN write_id INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE patches ADD COLUMN write_id INTEGER NOT NULL DEFAULT 0;
                    PRAGMA user_version = 2;
                    COMMIT;
                    """)
            } catch {
                c.rollbackIfNeeded()
                throw error
            }
        }
    }

    /// Reads the file's header (when the file exists) and says what is wrong with it: not a SQLite
    /// database, or shorter than the pages its header counts (truncated). Only trusted after a
    /// clean close: with a write-ahead log holding frames, the log may hold what the file lacks,
    /// and SQLite's recovery reads it.
    static func checkHeader(path: String) throws(StorageError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // absent: created at open
        // A directory's size is its own (4096 bytes or so): without this it read as a short file.
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            throw .io(path: path, detail: "it is a directory, not a database file: name a file (sqlite:DIR/layoutd.db)")
        default:
            throw .io(path: path, detail: "it is not a regular file (a device, pipe or socket): name a database file")
        }
        let size = Int(info.st_size)
        if size == 0 { return }  // a new database: SQLite writes its header on the first write
        guard size >= 100, let header = readPrefix(path, 100) else {
            throw .corrupt(path: path, detail: "the file is \(size) bytes long: too short for a SQLite database header (100 bytes)")
        }
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw .corrupt(path: path, detail: "not a SQLite database: its first 16 bytes are not \"SQLite format 3\\0\"")
        }
        var walInfo = stat()
        if stat(path + "-wal", &walInfo) == 0 && walInfo.st_size > 0 { return }
        func u32(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // The in-header page count is valid when the change counter equals "version valid for".
        guard u32(24) == u32(92) else { return }
        let pages = u32(28)
        if pages * pageSize > size {
            throw .corrupt(path: path, detail: "truncated: its header counts \(pages) pages of \(pageSize) bytes "
                           + "(\(pages * pageSize) bytes) but the file has \(size) bytes")
        }
    }

    private static func readPrefix(_ path: String, _ count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return n == count ? bytes : nil
    }
}
