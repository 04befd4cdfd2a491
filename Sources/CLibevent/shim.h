// Public libevent 2.1 headers used by EventHTTP.
//
// Only public headers: every libevent object then imports into Swift as an
// OpaquePointer. The *_struct.h / *_compat.h headers are deliberately left out,
// except keyvalq_struct.h, which makes `struct evkeyval` complete so that the
// header lists of a request can be walked from Swift.
#ifndef LAYOUTD_CLIBEVENT_SHIM_H
#define LAYOUTD_CLIBEVENT_SHIM_H

// System headers first, before event2/event-config.h defines _GNU_SOURCE: glibc must see the
// same feature macros here as when Swift builds its own Glibc module, or types such as fd_set
// come out different in the two modules and Swift refuses to merge them.
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>

#endif
