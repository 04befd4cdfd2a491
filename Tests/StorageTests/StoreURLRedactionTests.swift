import Storage
import Testing

/// Issue 27 item 9: a PostgreSQL password reached the start-up log and `layoutd store` output.
/// `redactedStoreURL` is what every place that prints a store uses.
@Suite("redactedStoreURL: no password is ever printed")
struct StoreURLRedactionTests {
    @Test("URL forms: user:password@, password and sslpassword parameters, percent-encoded, in any case",
          arguments: [
            ("postgres://user:pass@host/db", "postgres://user:***@host/db"),
            ("postgresql://layoutd:s%40cr%2Ft@db.internal:5432/layoutd", "postgresql://layoutd:***@db.internal:5432/layoutd"),
            // A raw '@' or '/' in the password (libpq would misread it): hidden whole all the same.
            ("postgres://u:p@ss/w@host/db", "postgres://u:***@host/db"),
            ("postgres://host/db?password=secret", "postgres://host/db?password=***"),
            ("postgres://host/db?user=u&password=secret&connect_timeout=2", "postgres://host/db?user=u&password=***&connect_timeout=2"),
            ("postgres://host/db?sslpassword=k&PASSWORD=x", "postgres://host/db?sslpassword=***&PASSWORD=***"),
            ("postgres://host/db?pass%77ord=secret", "postgres://host/db?pass%77ord=***"),
            ("postgres://u:a@h/db?password=b", "postgres://u:***@h/db?password=***"),
          ])
    func urlForms(_ url: String, _ shown: String) {
        #expect(redactedStoreURL(url) == shown)
    }

    @Test("no password: the text comes back unchanged",
          arguments: ["memory", "sqlite:data/layoutd.db", "sqlite:/var/lib/a:b@c.db", "postgres://layoutd@db:5432/layoutd",
                      "postgres://host:5432/db?connect_timeout=2", "postgres:///db?host=/run/postgresql",
                      "password authentication failed for user \"layoutd\""])
    func noPassword(_ text: String) {
        #expect(redactedStoreURL(text) == text)
    }

    @Test("libpq key/value form: plain, spaced and quoted values with escapes",
          arguments: [
            ("host=db password=secret user=u", "host=db password=*** user=u"),
            ("password = secret dbname=x", "password = *** dbname=x"),
            ("host=db password='se cr\\'et' port=5", "host=db password=*** port=5"),
            ("sslpassword=k host=db", "sslpassword=*** host=db"),
          ])
    func keyValueForm(_ conninfo: String, _ shown: String) {
        #expect(redactedStoreURL(conninfo) == shown)
        #expect(!redactedStoreURL(conninfo).contains("secret"))
    }
}
