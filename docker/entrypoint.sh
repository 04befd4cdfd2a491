#!/bin/sh
# The container image's entrypoint: runs layoutd with the arguments given to `docker run`, and for
# `serve` (the default command) appends `--host 0.0.0.0` after them: the last --host wins, so the
# daemon listens on every interface of the container whatever flags, environment or configuration
# file say (127.0.0.1 inside a container is unreachable from outside it), with the API keys the
# image's ENV names unless told otherwise (below). Other subcommands (`solve`,
# `store check`, `probe`, `keys new|list|revoke`) run unchanged; arguments that start with a flag are serve's.
# LAYOUTD_BINARY is for tests of this script outside the image.
set -e
binary="${LAYOUTD_BINARY:-/usr/local/bin/layoutd}"
# No arguments, or flags only (`docker run layoutd --threads 4`): they are serve's.
if [ "$#" -eq 0 ]; then
    set -- serve
elif [ "${1#-}" != "$1" ]; then
    set -- serve "$@"
fi
if [ "$1" = "serve" ]; then
    # On every interface, so with keys (issue 29): the image's ENV names the keys file,
    # /etc/layoutd/keys/api-keys, in a directory the operator mounts (not the file itself:
    # `keys revoke` replaces the file by a rename, which a single-file bind mount would never show
    # the daemon). --allow-anonymous (or LAYOUTD_ALLOW_ANONYMOUS=true) means no keys: the image's
    # default file is then dropped (a file the operator named is not).
    anonymous=""
    for argument in "$@"; do
        [ "$argument" = "--allow-anonymous" ] && anonymous=1
    done
    case "$(printf '%s' "${LAYOUTD_ALLOW_ANONYMOUS:-}" | tr '[:upper:]' '[:lower:]')" in
        true | 1 | yes) anonymous=1 ;;
    esac
    if [ -n "$anonymous" ] && [ "${LAYOUTD_API_KEYS_FILE:-}" = /etc/layoutd/keys/api-keys ]; then
        unset LAYOUTD_API_KEYS_FILE
    fi
    exec "$binary" "$@" --host 0.0.0.0
fi
exec "$binary" "$@"
