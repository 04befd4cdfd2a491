// libpq (Debian's libpq-dev): the PostgreSQL session store's client library (PostgresStorage).
#include <libpq-fe.h>
