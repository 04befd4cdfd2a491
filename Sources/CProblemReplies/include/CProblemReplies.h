// libevent's own error replies (400, 413, 501) as problem+json: ProblemReplies.c defines
// `evhttp_send_error` for the process. Linked into the `layoutd` executable only.
#ifndef LAYOUTD_CPROBLEMREPLIES_H
#define LAYOUTD_CPROBLEMREPLIES_H

/// Returns 1. Calling it makes the linker keep ProblemReplies.c (and so the override) in the
/// executable; whether libevent's calls reach the override is what EventHTTP's
/// `LibeventInternals.errorReplyContentType()` finds out at start-up.
int layoutd_problem_replies_linked(void);

#endif
