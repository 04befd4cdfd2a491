# shellcheck shell=bash
# Shared by scripts/run and scripts/test: make sure the system packages layoutd builds against
# are installed. Source it, then call ensure_deps.

# Prints to stderr.
deps_say() { printf 'scripts: %s\n' "$*" >&2; }

# Runs a command as root: directly when we are root, through sudo otherwise.
deps_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        deps_say "need root (or sudo) to run: $*"
        return 1
    fi
}

# Whether the system packages are there: libevent, SQLite and libpq (pkg-config knows them) and mimalloc
# (Debian's libmimalloc-dev ships no pkg-config file: its header and link name are looked for).
deps_present() {
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libevent sqlite3 libpq || return 1
    [ -f /usr/include/mimalloc.h ] || [ -f /usr/local/include/mimalloc.h ] || return 1
}

# Installs PACKAGES with apt-get (as root, via sudo when needed), trying the package lists as they
# are first and refreshing them only if that fails. WHAT names them in the messages.
deps_apt_install() {
    local what="$1"; shift
    if ! command -v apt-get >/dev/null 2>&1; then
        deps_say "$what missing and there is no apt-get: install them by hand"
        return 1
    fi
    deps_say "installing $* with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! deps_as_root apt-get install -y -q "$@" >&2; then
        deps_as_root apt-get update -q >&2
        deps_as_root apt-get install -y -q "$@" >&2
    fi
}

# Installs libevent-dev, libsqlite3-dev, libpq-dev (the PostgreSQL client library the postgres
# store links), libmimalloc-dev and pkg-config with apt-get, only when they are missing.
ensure_libevent() {
    deps_present && return 0
    deps_apt_install "libevent (2.1), SQLite 3, libpq, mimalloc and pkg-config are" \
        libevent-dev libsqlite3-dev libpq-dev libmimalloc-dev pkg-config || return 1
    deps_present || { deps_say "libevent, SQLite, libpq or mimalloc still not found"; return 1; }
}

# The PostgreSQL server programs (initdb, pg_ctl, postgres) of Debian's `postgresql` package, for the
# private servers of scripts/lib/postgres.sh (tests, scripts/cluster); not needed to build or to run
# layoutd against an existing database. Installing the package does not need a running service:
# postgres.sh starts its own server in its own data directory.
postgres_bindir_present() {
    local initdb
    for initdb in /usr/lib/postgresql/*/bin/initdb; do
        [ -x "$initdb" ] && return 0
    done
    return 1
}

ensure_postgres() {
    postgres_bindir_present && return 0
    deps_apt_install "PostgreSQL's server programs are" postgresql || return 1
    postgres_bindir_present || { deps_say "PostgreSQL's initdb still not found"; return 1; }
}

# Debian's prometheus (prometheus and promtool): the metrics test checks /metrics with `promtool
# check metrics` and has a real Prometheus scrape the daemon. Installed only when missing; its
# service is not needed (the test starts its own, on a private port and data directory).
ensure_prometheus() {
    command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 && return 0
    deps_apt_install "prometheus and promtool are" --no-install-recommends prometheus || return 1
    command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 \
        || { deps_say "prometheus or promtool still not found"; return 1; }
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        deps_say "swift is not on PATH: install a Swift 6 toolchain (https://www.swift.org/install/)"
        return 1
    fi
}

ensure_deps() {
    ensure_swift
    ensure_libevent
}

# nginx, for scripts/cluster (and so scripts/test): Debian's `nginx` (Debian 12's nginx-light is only
# a transitional package that pulls it in with an extra module). Installing it starts no service the cluster uses: scripts/cluster
# runs its own nginx in a private directory with its own configuration.
# With it, openssl and curl: EdgeNginxTests makes a certificate and requests through TLS.
nginx_present() { { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } && command -v openssl >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; }

ensure_nginx() {
    nginx_present && return 0
    deps_apt_install "nginx, openssl and curl are" nginx openssl curl || return 1
    nginx_present || { deps_say "nginx, openssl or curl still not found"; return 1; }
}

# Python tools of the API contract: jsonschema and PyYAML (DocumentSchemaTests and
# OpenAPIContractTests run scripts/lib/schema_check.py and scripts/generate-openapi --check).
# Debian's python3-jsonschema and python3-yaml first, pip (into the user's site) when apt is absent.
schema_tools_present() { python3 -c 'import jsonschema, yaml' >/dev/null 2>&1; }

ensure_schema_tools() {
    schema_tools_present && return 0
    # Debian's packages serve Debian's python3 only: a python3 of its own on PATH (pyenv, as on the
    # CI machines) gets them from pip.
    if [ "$(command -v python3)" = /usr/bin/python3 ] && command -v apt-get >/dev/null 2>&1; then
        deps_apt_install "jsonschema and PyYAML are" python3-jsonschema python3-yaml
    fi
    if ! schema_tools_present; then
        deps_say "installing jsonschema and pyyaml with pip"
        python3 -m pip install --quiet jsonschema pyyaml >&2 || python3 -m pip install --user --quiet jsonschema pyyaml >&2
    fi
    schema_tools_present || { deps_say "python3 still cannot import jsonschema and yaml"; return 1; }
}

# TypeScript's compiler (Debian's node-typescript: `tsc`) for ClientPackageTests, which compiles
# clients/js/layoutd.d.ts with a typed example and a misspelt one (skipped locally without tsc;
# .ci/run installs it and sets LAYOUTD_REQUIRE_TSC=1 so that CI cannot skip them).
ensure_typescript() {
    command -v tsc >/dev/null 2>&1 && return 0
    deps_apt_install "TypeScript (tsc) is" node-typescript
    command -v tsc >/dev/null 2>&1 || { deps_say "tsc still missing after installing node-typescript"; return 1; }
}

# schemathesis (PyPI; not packaged by Debian) for scripts/api-fuzz: the `st` on PATH when there is
# one, else a virtual environment of its own under ~/.cache/layoutd/venv (Debian's python3 refuses
# pip installs into the system, PEP 668), made once.
ensure_schemathesis() {
    command -v st >/dev/null 2>&1 && return 0
    local venv="${XDG_CACHE_HOME:-$HOME/.cache}/layoutd/venv"
    [ -x "$venv/bin/st" ] && return 0
    if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
        deps_apt_install "python3-venv is" python3-venv
    fi
    deps_say "installing schemathesis into $venv"
    python3 -m venv "$venv" >&2 && "$venv/bin/pip" install --quiet 'schemathesis>=4.32,<5' >&2
    [ -x "$venv/bin/st" ] || { deps_say "schemathesis could not be installed"; return 1; }
}
