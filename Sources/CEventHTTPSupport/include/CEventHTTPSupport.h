// C helpers for EventHTTP where Swift cannot reach (variadic or macro-only C APIs). Nothing here
// overrides a symbol of another library: every function has a `layoutd_` name and is called
// explicitly. What leans on libevent's internals is declared apart, in LibeventInternals.h.
#ifndef LAYOUTD_CEVENTHTTPSUPPORT_H
#define LAYOUTD_CEVENTHTTPSUPPORT_H

#include <stddef.h>

#include "LibeventInternals.h"

struct evbuffer;

/// Looks at the complete header block at the start of `input` (a request libevent has not read
/// yet) and changes it in place so that libevent refuses it at once: 1 for a `Content-Length` that
/// is not one plain number (400), 2 for `Expect: 100-continue` with a length over
/// `max_body_bytes` (417); 0 otherwise. Also turns NULs in header lines into 0x01, blanks chunk
/// extensions and spoils `0x` chunk sizes of a chunked body already in the buffer. See Prescan.c.
int layoutd_prescan_request(struct evbuffer *input, size_t max_header_bytes, unsigned long long max_body_bytes);

/// The CPUs this process may run on (its affinity mask), else the online CPUs; at least one.
int layoutd_available_cpus(void);

#endif
