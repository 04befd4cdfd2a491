import Storage

/// The store's tables, created or migrated when the store first reaches its database (the
/// `layoutd_schema` row holds the version), and the statements every connection prepares.
///
/// Names start with `layoutd_` so the store can share an existing database with other programs.
/// A session's row holds its snapshot: PostgreSQL keeps a large bytea out of line (TOAST), and an
/// UPDATE that leaves it alone copies only the pointer, so an append rewrites a small row. Ids use
/// the "C" collation: their index is in byte order, which `ids(after:limit:)` pages in. Patches
/// are keyed by (id, revision), a second fence under the conditional UPDATE; they carry the
/// generation that wrote them so `check` can tell a leftover from a live one. Generations come
/// from a sequence: never handed out twice, whatever is deleted.
enum PostgresSchema {
    /// 2: `layoutd_sessions.write_id`, the write id (`WriteChain`) of the session's revision.
    static let version = 2

    static func create(firstGeneration: UInt64) -> String { """
        CREATE TABLE layoutd_schema (version integer NOT NULL);
        CREATE SEQUENCE layoutd_generation START WITH \(firstGeneration);
        CREATE TABLE layoutd_sessions (
            id text COLLATE "C" PRIMARY KEY,
            generation bigint NOT NULL,
            revision integer NOT NULL,
            snapshot bytea NOT NULL,
            snapshot_revision integer NOT NULL,
            snapshot_bytes integer NOT NULL,
            patch_count integer NOT NULL,
            patch_bytes bigint NOT NULL,
            delegates text NOT NULL,
            last_used double precision NOT NULL,
            write_id bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE layoutd_patches (
            id text COLLATE "C" NOT NULL,
            generation bigint NOT NULL,
            revision integer NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (id, revision)
        );
        """
    }

    /// Creates the tables in a database that has none, checks an existing schema's version. Two
    /// nodes starting together take turns (a transaction-scoped advisory lock).
    static func prepare(_ c: PostgresConnection, now: Double) throws(StorageError) {
        try c.execute("BEGIN")
        do throws(StorageError) {
            // Any constant every node agrees on ("layoutd" in ASCII).
            try c.execute("SELECT pg_advisory_xact_lock(30518162010977380)")
            let exists = try c.texts("SELECT to_regclass('layoutd_schema') IS NOT NULL")
            if exists.first?.first == "f" {
                if try c.texts("SELECT to_regclass('layoutd_sessions') IS NOT NULL").first?.first == "t" {
                    throw StorageError.corrupt(path: "PostgreSQL table layoutd_sessions",
                                               detail: "it exists without a layoutd_schema version row (not made by layoutd?)")
                }
                try c.execute(create(firstGeneration: initialGeneration(now: now)))
                try c.execute("INSERT INTO layoutd_schema VALUES (\(version))")
            } else {
                let rows = try c.texts("SELECT version FROM layoutd_schema")
                guard rows.count == 1, let text = rows[0][0], let found = Int(text) else {
                    throw StorageError.corrupt(path: "PostgreSQL table layoutd_schema",
                                               detail: "it holds \(rows.count) rows, not one version")
                }
                if found > version {
                    throw StorageError.unavailable("the PostgreSQL database has layoutd schema version \(found), "
                                                   + "written by a newer layoutd (this one knows \(version))")
                }
                // Migrations from older versions, one step each, inside this transaction.
                if found < 2 {
                    // Sessions stored before write ids chain on from 0 on every node.
                    try c.execute("ALTER TABLE layoutd_sessions ADD COLUMN write_id bigint NOT NULL DEFAULT 0")
                    try c.execute("UPDATE layoutd_schema SET version = 2")
                }
            }
            try c.execute("COMMIT")
        } catch {
            _ = try? c.execute("ROLLBACK")
            throw error
        }
    }
}

/// The statements, prepared on each connection on first use. A write that changes a session
/// notifies its bucket's channel (`NoticeBuckets`), passed as a parameter.
enum SQL {
    private static func notifyChanged(_ channel: String) -> String {
        "pg_notify(\(channel), 'c ' || generation || ' ' || revision || ' ' || write_id || ' ' || id)"
    }
    /// A PATCH's notice carries the patch (hex: a payload is text without NUL, and must stay under
    /// PostgreSQL's 8000 bytes), so that nodes following the session apply it without a read;
    /// a larger patch sends the plain notice.
    private static let notifyAppended = """
        pg_notify($9, CASE WHEN length($4) <= \(maxNoticePatchBytes)
            THEN 'p ' || generation || ' ' || revision || ' ' || write_id || ' ' || encode($4, 'hex') || ' ' || id
            ELSE 'c ' || generation || ' ' || revision || ' ' || write_id || ' ' || id END)
        """
    static let maxNoticePatchBytes = 3_800

    /// $1 id, $2 revision, $3 document, $4 delegates, $5 now, $6 write id, $7 channel → the new
    /// generation; no row: the id exists.
    static let create = PostgresStatement(name: "create", sql: """
        WITH s AS (
            INSERT INTO layoutd_sessions (id, generation, revision, snapshot, snapshot_revision, snapshot_bytes,
                                          patch_count, patch_bytes, delegates, last_used, write_id)
            VALUES ($1, nextval('layoutd_generation'), $2, $3, $2, length($3), 0, 0, $4, $5, $6)
            ON CONFLICT (id) DO NOTHING
            RETURNING id, generation, revision, write_id)
        SELECT generation, \(notifyChanged("$7")) FROM s
        """, types: [.text, .int4, .bytea, .text, .float8, .int8, .text])

    /// $1 id, $2 generation, $3 revision, $4 document, $5 delegates, $6 now, $7 base write id,
    /// $8 new write id, $9 channel; no row: fenced off.
    static let replace = PostgresStatement(name: "replace", sql: """
        WITH s AS (
            UPDATE layoutd_sessions SET revision = $3, snapshot = $4, snapshot_revision = $3, snapshot_bytes = length($4),
                                        patch_count = 0, patch_bytes = 0, delegates = $5, last_used = $6, write_id = $8
            WHERE id = $1 AND generation = $2 AND revision = $3 - 1 AND write_id = $7
            RETURNING id, generation, revision, write_id),
        d AS (DELETE FROM layoutd_patches p USING s WHERE p.id = s.id)
        SELECT \(notifyChanged("$9")) FROM s
        """, types: [.text, .int8, .int4, .bytea, .text, .float8, .int8, .int8, .text])

    /// $1 id, $2 generation, $3 revision, $4 patch, $5 delegates (null: unchanged), $6 now, $7 base
    /// write id, $8 new write id, $9 channel → patch_count, patch_bytes, snapshot_bytes after it; no row: fenced
    /// off. A patch row already at (id, revision) can only be a leftover (the fence passed): it is
    /// overwritten.
    static let append = PostgresStatement(name: "append", sql: """
        WITH s AS (
            UPDATE layoutd_sessions SET revision = $3, patch_count = patch_count + 1,
                                        patch_bytes = patch_bytes + length($4),
                                        delegates = coalesce($5, delegates), last_used = $6, write_id = $8
            WHERE id = $1 AND generation = $2 AND revision = $3 - 1 AND write_id = $7
            RETURNING id, generation, revision, patch_count, patch_bytes, snapshot_bytes, write_id),
        p AS (
            INSERT INTO layoutd_patches (id, generation, revision, bytes) SELECT id, generation, revision, $4 FROM s
            ON CONFLICT (id, revision) DO UPDATE SET generation = excluded.generation, bytes = excluded.bytes)
        SELECT patch_count, patch_bytes, snapshot_bytes, \(notifyAppended) FROM s
        """, types: [.text, .int8, .int4, .bytea, .text, .float8, .int8, .int8, .text])

    /// $1 id, $2 generation, $3 revision (the stored one), $4 document, $5 its write id (null:
    /// any); no row: fenced off. No notice: the session's content does not change.
    static let snapshot = PostgresStatement(name: "snapshot", sql: """
        WITH s AS (
            UPDATE layoutd_sessions SET snapshot = $4, snapshot_revision = revision, snapshot_bytes = length($4),
                                        patch_count = 0, patch_bytes = 0
            WHERE id = $1 AND generation = $2 AND revision = $3 AND ($5::bigint IS NULL OR write_id = $5)
            RETURNING id),
        d AS (DELETE FROM layoutd_patches p USING s WHERE p.id = s.id AND p.revision <= $3)
        SELECT 1 FROM s
        """, types: [.text, .int8, .int4, .bytea, .int8])

    /// A delete is a transaction of its own (BEGIN, these two, COMMIT): its patches are deleted by a
    /// second statement, whose snapshot sees every patch committed before the session's row was
    /// locked (one statement's snapshot could miss a patch committed while it waited for the row).
    static let deleteSession = PostgresStatement(name: "delete_session", sql: """
        DELETE FROM layoutd_sessions WHERE id = $1 AND generation = $2 RETURNING revision
        """, types: [.text, .int8])
    /// Idle expiry of one session, in place of `deleteSession`: $3 the time its last use must be before.
    static let expireSession = PostgresStatement(name: "expire_session", sql: """
        DELETE FROM layoutd_sessions WHERE id = $1 AND generation = $2 AND last_used < $3 RETURNING revision
        """, types: [.text, .int8, .float8])
    /// $1 id, $2 generation, $3 channel.
    static let deletePatches = PostgresStatement(name: "delete_patches", sql: """
        WITH d AS (DELETE FROM layoutd_patches WHERE id = $1)
        SELECT pg_notify($3, 'd ' || $2 || ' ' || $1)
        """, types: [.text, .int8, .text])

    /// $1 a JSON array of `{"id", "g", "t"}` (the uses of `touch(_:)`): each session of that
    /// generation gets the later of its stored use and the given one, in one statement.
    static let touchMany = PostgresStatement(name: "touch_many", sql: """
        UPDATE layoutd_sessions s SET last_used = u.t
        FROM json_to_recordset($1::json) AS u(id text, g bigint, t double precision)
        WHERE s.id = u.id COLLATE "C" AND s.generation = u.g AND s.last_used < u.t
        """, types: [.text])

    /// $1 time → the sessions last used before it, deleted with their patches. Each is told to
    /// the other nodes as a delete by `notifyMany` in the same transaction: the channels are
    /// computed in Swift (`NoticeBuckets`) from the ids this statement answers.
    static let expire = PostgresStatement(name: "expire", sql: """
        WITH d AS (DELETE FROM layoutd_sessions WHERE last_used < $1 RETURNING id, generation),
        p AS (DELETE FROM layoutd_patches USING d WHERE layoutd_patches.id = d.id)
        SELECT id, generation FROM d
        """, types: [.float8])

    /// $1 a JSON array of `[channel, payload]` pairs: one notification each, sent at commit.
    static let notifyMany = PostgresStatement(name: "notify_many", sql: """
        SELECT pg_notify(n->>0, n->>1) FROM json_array_elements($1::json) AS n
        """, types: [.text])

    /// $1 id, $2 generation, $3 time; no row: fenced off.
    static let touch = PostgresStatement(name: "touch", sql: """
        UPDATE layoutd_sessions SET last_used = $3 WHERE id = $1 AND generation = $2 RETURNING 1
        """, types: [.text, .int8, .float8])

    /// What is stored for $1, for a conflict's report.
    static let stored = PostgresStatement(name: "stored", sql: """
        SELECT generation, revision, write_id FROM layoutd_sessions WHERE id = $1
        """, types: [.text])

    /// The session's row first (column 6 null), then its patches in revision order: one statement,
    /// so one snapshot of both.
    static let load = PostgresStatement(name: "load", sql: """
        SELECT generation, revision, snapshot_revision, delegates, last_used, snapshot, NULL::integer AS patch_revision,
               write_id
        FROM layoutd_sessions WHERE id = $1
        UNION ALL
        SELECT generation, revision, NULL, NULL, NULL, bytes, revision, NULL FROM layoutd_patches WHERE id = $1
        ORDER BY patch_revision NULLS FIRST
        """, types: [.text])

    static let count = PostgresStatement(name: "count", sql: "SELECT count(*) FROM layoutd_sessions", types: [])

    static let idsFirst = PostgresStatement(name: "ids_first", sql: """
        SELECT id FROM layoutd_sessions ORDER BY id LIMIT $1
        """, types: [.int8])
    static let idsAfter = PostgresStatement(name: "ids_after", sql: """
        SELECT id FROM layoutd_sessions WHERE id > $2 ORDER BY id LIMIT $1
        """, types: [.int8, .text])

    /// Sessions with patches after $1, a page for `compact`.
    static let foldable = PostgresStatement(name: "foldable", sql: """
        SELECT id FROM layoutd_sessions WHERE patch_count > 0 AND id > $1 ORDER BY id LIMIT 256
        """, types: [.text])
}
