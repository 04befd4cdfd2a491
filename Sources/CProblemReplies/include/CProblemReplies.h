// libevent's own error replies (400, 413, 501) as problem+json: ProblemReplies.c defines
// `evhttp_send_error` for the process. Linked into the `layoutd` executable only.
#ifndef LAYOUTD_CPROBLEMREPLIES_H
#define LAYOUTD_CPROBLEMREPLIES_H

/// Returns 1. Calling it makes the linker keep ProblemReplies.c (and so the override) in the
/// executable; whether libevent's calls reach the override is what EventHTTP's
/// `LibeventInternals.errorReplyContentType()` finds out at start-up.
int layoutd_problem_replies_linked(void);

/// Adds the header `name: value` to the reply being made (`context` is the reply's).
typedef void (*layoutd_problem_header_adder)(void *context, const char *name, const char *value);

/// Called for every reply the override makes, with the request's `Origin` (NULL when it has none):
/// adds the reply's extra headers (CORS, so that a page can read a 413 or a 501) through `add`.
typedef void (*layoutd_problem_headers_fn)(const char *origin, layoutd_problem_header_adder add, void *context);

/// Sets the function above (NULL: none). Call it before the server starts: the workers read it
/// without a lock.
void layoutd_problem_replies_set_headers(layoutd_problem_headers_fn headers);

#endif
