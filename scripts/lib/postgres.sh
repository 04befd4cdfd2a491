# shellcheck shell=bash
# A private PostgreSQL server on loopback, for the tests (scripts/test) and scripts/cluster: its own
# data directory, its own port, trust authentication (only 127.0.0.1 and a unix socket inside the data
# directory can reach it), nothing of the machine's own PostgreSQL service used or changed.
#
#   source scripts/lib/postgres.sh
#   url="$(postgres_start DIR PORT)"   # initdb into DIR when it holds no cluster yet; prints the URL
#   postgres_stop DIR                   # fast shutdown; the data stays in DIR
#
# The URL is postgres://postgres@127.0.0.1:PORT/postgres (database superuser `postgres`). As root the
# server runs as the `postgres` system user (PostgreSQL refuses to run as root): DIR is given to it,
# so DIR's parents must let that user through (a directory from `mktemp -d` is fine; a directory
# *inside* one is not: mktemp's 0700 stops other users). POSTGRES_OPTIONS adds server settings
# (e.g. POSTGRES_OPTIONS="-c fsync=off" for throw-away test data).

# shellcheck source=deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"

postgres_say() { printf 'postgres.sh: %s\n' "$*" >&2; }

# The newest installed server's bin directory (Debian keeps one per major version).
postgres_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$dir" ] || { postgres_say "no /usr/lib/postgresql/*/bin: is the postgresql package installed?"; return 1; }
    printf '%s\n' "$dir"
}

# Runs a server program as the user that owns the cluster: `postgres` when we are root.
postgres_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# postgres_start DIR PORT: starts (initialising if needed) the cluster in DIR on 127.0.0.1:PORT,
# waits until it accepts connections, prints its URL. Already running: prints the URL.
postgres_start() {
    local dir="${1:?postgres_start DIR PORT}" port="${2:?postgres_start DIR PORT}" bin
    ensure_postgres || return 1
    bin="$(postgres_bindir)" || return 1
    mkdir -p "$dir" || return 1
    dir="$(cd "$dir" && pwd)"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$dir" && chmod 0700 "$dir" || return 1
        if ! runuser -u postgres -- test -w "$dir"; then
            postgres_say "the postgres user cannot reach $dir (a parent directory is closed to it): use a directory it can enter"
            return 1
        fi
    fi
    if [ ! -f "$dir/PG_VERSION" ]; then
        if [ -n "$(ls -A "$dir")" ]; then
            postgres_say "$dir is neither empty nor a PostgreSQL data directory"
            return 1
        fi
        # C locale: byte order for text, what the store's ids paging expects anyway, and no locale
        # needed on the machine. Trust authentication: nothing but loopback reaches the server.
        local out
        if ! out="$(postgres_as_owner "$bin/initdb" -D "$dir" -U postgres -E UTF8 --locale=C \
            --auth=trust --no-instructions 2>&1)"; then
            postgres_say "initdb failed: $out"
            return 1
        fi
    fi
    if ! postgres_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        # The log sits in DIR (owned by the server's user); unix socket in DIR too, so two private
        # servers never share /var/run/postgresql. Started detached from our session (pg_ctl's
        # own setsid) so a Ctrl-C in the calling terminal does not stop it mid-test.
        # shellcheck disable=SC2086
        if ! postgres_as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 ${POSTGRES_OPTIONS:-}" \
            start >/dev/null; then
            postgres_say "the server did not start; its log:"
            tail -n 20 "$dir/server.log" >&2
            return 1
        fi
    fi
    printf 'postgres://postgres@127.0.0.1:%s/postgres\n' "$port"
}

# postgres_stop DIR: fast shutdown (open sessions are disconnected, nothing committed is lost).
postgres_stop() {
    local dir="${1:?postgres_stop DIR}" bin
    bin="$(postgres_bindir)" || return 1
    [ -f "$dir/PG_VERSION" ] || return 0
    postgres_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1 || return 0
    postgres_as_owner "$bin/pg_ctl" -D "$dir" -w -t 60 -m fast stop >/dev/null
}
