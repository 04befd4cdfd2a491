// A look at a request's header block before libevent reads it, for the two requests libevent 2.1
// would otherwise never answer (docs/robustness.md):
//
// - a `Content-Length` libevent cannot take at its word: a number too large for it (`strtoll`
//   saturates 2^64 and 23-digit values at 2^63-1, and with lingering close libevent then reads and
//   drops that many bytes before answering, i.e. never), a sign (`+2`), anything not plain digits,
//   or more than one `Content-Length` (libevent takes the first; whatever follows would run as a
//   second request);
// - `Expect: 100-continue` with a declared length over the body limit (libevent waits, with lingering
//   close, for a body the client will not send before it has an answer).
//
// libevent 2.1 has no public hook between a server request's headers and its body, so the request
// is changed so that libevent refuses it itself, at once: the first byte of the `Content-Length`
// value becomes `-` (a negative length: 400), or the first byte of the `Expect` value becomes `x`
// (an expectation it does not know: 417). Both replies go out through CProblemReplies as
// problem+json with `Connection: close`. The bytes are changed in place, within the input buffer's
// own callback (buffer.h allows a callback to change its buffer), before libevent's read callback
// parses them. Only a header block that is complete in the buffer is looked at: one trickled in
// line by line is parsed by libevent as it comes, and is bounded by the request deadline instead.
//
// Two more changes of the same kind, so that what reaches libevent means what was sent:
// - a NUL in a header line becomes 0x01: libevent's C strings would end the value at the NUL and
//   drop the rest unseen; as 0x01 the edge's checks (RequestChecks.swift) refuse it (400).
// - the chunk size lines of a chunked body already in the buffer: a chunk extension (`2;a=b`,
//   valid HTTP/1.1, which libevent's `strtoll(…, 16)` check refuses) is blanked to spaces, which
//   libevent accepts after a size; a `0x` prefix (which `strtoll` would read as hex) gets its `x`
//   changed to `z`, so that libevent refuses the size instead of reading another length than the
//   one sent. Chunk lines that arrive later are libevent's alone (docs/robustness.md).
#include "CEventHTTPSupport.h"

#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

/// Walks the chunk size lines in `body[0..<length]` (the start of a chunked body), as described above.
static void prescan_chunks(char *body, size_t length) {
    size_t at = 0;
    while (at < length) {
        char *line = body + at;
        char *line_end = memchr(line, '\n', length - at);
        if (line_end == NULL) return;
        char *c = line;
        unsigned long long size = 0;
        int digits = 0;
        for (; c < line_end; c++, digits++) {
            int value = (*c >= '0' && *c <= '9') ? *c - '0' : (*c >= 'a' && *c <= 'f') ? *c - 'a' + 10
                      : (*c >= 'A' && *c <= 'F') ? *c - 'A' + 10 : -1;
            if (value < 0) break;
            if (digits < 15) size = size * 16 + (unsigned)value;
        }
        if (c < line_end && (*c == 'x' || *c == 'X')) {
            *c = 'z';
            return;
        }
        if (digits == 0 || digits >= 15) return;  // libevent refuses it as it is
        if (c < line_end && *c == ';') {
            for (; c < line_end && *c != '\r'; c++) *c = ' ';
        }
        if (size == 0) return;  // the last chunk; trailers follow
        at = (size_t)(line_end + 1 - body) + size + 2;  // the data and its CRLF
    }
}

static int name_is(const char *line, size_t name_length, const char *name) {
    return strlen(name) == name_length && strncasecmp(line, name, name_length) == 0;
}

int layoutd_prescan_request(struct evbuffer *input, size_t max_header_bytes, unsigned long long max_body_bytes) {
    struct evbuffer_ptr end = evbuffer_search(input, "\r\n\r\n", 4, NULL);
    if (end.pos < 0 || (size_t)end.pos > max_header_bytes) return 0;
    size_t block_length = (size_t)end.pos + 2;  // through the last header line's CRLF
    // With the start of the body (up to 8 KiB of it), for its chunk size lines.
    size_t total = evbuffer_get_length(input);
    size_t visible = total < block_length + 2 + 8192 ? total : block_length + 2 + 8192;
    char *block = (char *)evbuffer_pullup(input, (ev_ssize_t)visible);
    if (block == NULL) return 0;
    int chunked = 0;

    char *first_length = NULL, *first_length_end = NULL, *expect = NULL;
    int lengths = 0, plain = 1;
    unsigned long long declared = 0;
    char *line = memchr(block, '\n', block_length);  // the request line is skipped
    while (line != NULL && (size_t)(++line - block) < block_length) {
        char *line_end = memchr(line, '\n', block_length - (size_t)(line - block));
        if (line_end == NULL) break;
        for (char *nul = memchr(line, 0, (size_t)(line_end - line)); nul != NULL;
             nul = memchr(nul, 0, (size_t)(line_end - nul))) {
            *nul = 0x01;
        }
        char *colon = memchr(line, ':', (size_t)(line_end - line));
        if (colon != NULL) {
            char *value = colon + 1, *value_end = line_end;
            while (value < value_end && (*value == ' ' || *value == '\t')) value++;
            while (value_end > value && (value_end[-1] == '\r' || value_end[-1] == ' ' || value_end[-1] == '\t')) value_end--;
            size_t name_length = (size_t)(colon - line);
            if (name_is(line, name_length, "Content-Length")) {
                if (lengths++ == 0) {
                    first_length = value;
                    first_length_end = value_end;
                }
                size_t digits = (size_t)(value_end - value);
                if (digits == 0 || digits > 18) plain = 0;
                for (char *c = value; c < value_end && plain; c++) {
                    if (*c < '0' || *c > '9') plain = 0; else declared = declared * 10 + (unsigned)(*c - '0');
                }
            } else if (name_is(line, name_length, "Expect") && (size_t)(value_end - value) == 12
                       && strncasecmp(value, "100-continue", 12) == 0) {
                expect = value;
            } else if (name_is(line, name_length, "Transfer-Encoding") && value_end - value >= 7
                       && strncasecmp(value_end - 7, "chunked", 7) == 0) {
                chunked = 1;
            }
        }
        line = line_end;
    }
    // An empty first value is refused by libevent as it is (and there is no byte to change).
    if (lengths > 0 && (lengths > 1 || !plain) && first_length < first_length_end) {
        *first_length = '-';
        return 1;
    }
    if (expect != NULL && lengths == 1 && declared > max_body_bytes) {
        *expect = 'x';
        return 2;
    }
    if (chunked && lengths == 0) prescan_chunks(block + block_length + 2, visible - block_length - 2);
    return 0;
}
