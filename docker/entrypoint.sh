#!/bin/sh
# The container image's entrypoint: runs layoutd with the arguments given to `docker run`, and for
# `serve` (the default command) appends `--host 0.0.0.0` after them: the last --host wins, so the
# daemon listens on every interface of the container whatever flags, environment or configuration
# file say (127.0.0.1 inside a container is unreachable from outside it). Other subcommands
# (`solve`, `store check`, `probe`) run unchanged; arguments that start with a flag are serve's.
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
    exec "$binary" "$@" --host 0.0.0.0
fi
exec "$binary" "$@"
