// SQLite 3 (Debian's libsqlite3-dev): the embedded session store (SQLiteStorage).
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: a blob or text
// bound with it is copied by SQLite before the bind returns.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
