// libevent's epoll interest changes that change nothing, answered without the system call.
//
// evhttp stops reading a connection when a request is complete and starts again when the reply
// has gone; with the reply written in the same turn of the loop (SendNow.c) the two meet in
// libevent's change list, which folds them into an `epoll_ctl(EPOLL_CTL_MOD)` to exactly the
// interest the socket already has (read, the same data): one system call a request that
// changes nothing. For a level-triggered registration such a call has no effect the program can
// observe: readiness is evaluated again at every `epoll_wait` either way.
//
// So this `epoll_ctl` (ELF interposition, as the other fast paths) remembers, per descriptor,
// the last interest libevent registered successfully in which epoll instance, and answers a
// libevent MOD to that same interest with success without the call. Anything else goes to the
// kernel and updates or forgets what is remembered: other callers, ADD and DEL, failures,
// edge-triggered or one-shot interest, descriptors past the table. `close` forgets the
// descriptor before closing it, so a number reused for a new socket (which libevent may
// register with a MOD that its change list merged from the old socket's DEL and the new one's
// ADD: the kernel then says ENOENT and libevent retries with ADD) is never taken for the old
// registration.
#include "CEvhttpFastPaths.h"
#include "Internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { TRACKED_DESCRIPTORS = 65536 };

// One entry per descriptor, written and read only by the thread whose event loop owns it (a
// live descriptor is registered in one loop), and cleared by `close`; `epoll` is the epoll
// descriptor + 1 (0: nothing remembered). Relaxed atomics: a descriptor's number passes from one
// thread to another only through `close` and the call that hands the number out again (`accept`,
// `socket`, `pipe`, ...), system calls that order these accesses already.
struct interest {
    int epoll;
    uint32_t events;
    uint64_t data;
};
static struct interest remembered[TRACKED_DESCRIPTORS];

static void forget(int fd) {
    if (fd >= 0 && fd < TRACKED_DESCRIPTORS) __atomic_store_n(&remembered[fd].epoll, 0, __ATOMIC_RELAXED);
}

/// `epoll_ctl`, with a MOD from libevent (`from_libevent`) to the remembered interest answered
/// without the system call.
static int change_interest(int epfd, int op, int fd, struct epoll_event *event, int from_libevent) {
    int tracked = fd >= 0 && fd < TRACKED_DESCRIPTORS;
    if (from_libevent && tracked && op == EPOLL_CTL_MOD && event != NULL
        && __atomic_load_n(&remembered[fd].epoll, __ATOMIC_RELAXED) == epfd + 1
        && remembered[fd].events == event->events && remembered[fd].data == event->data.u64) {
        layoutd_note_fast_path(LAYOUTD_FAST_SAME_INTEREST);
        return 0;
    }
    int result = (int)syscall(SYS_epoll_ctl, epfd, op, fd, event);
    if (tracked) {
        if (from_libevent && result == 0 && (op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD) && event != NULL
            && (event->events & (EPOLLET | EPOLLONESHOT)) == 0) {
            remembered[fd].events = event->events;
            remembered[fd].data = event->data.u64;
            __atomic_store_n(&remembered[fd].epoll, epfd + 1, __ATOMIC_RELAXED);
        } else {
            forget(fd);
        }
    }
    return result;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
    return change_interest(epfd, op, fd, event, layoutd_called_from_libevent((uintptr_t)__builtin_return_address(0)));
}

typedef int (*close_function)(int);

// glibc's `close`, found at load (so that `close` never calls `dlsym`, which a signal handler
// must not, once the program runs), or on first use by a constructor that runs earlier.
static close_function next_close;

static close_function glibc_close(void) {
    close_function f = __atomic_load_n(&next_close, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (close_function)dlsym(RTLD_NEXT, "close");
        __atomic_store_n(&next_close, f, __ATOMIC_RELEASE);
    }
    return f;
}

__attribute__((constructor)) static void find_glibc_close(void) { (void)glibc_close(); }

int close(int fd) {
    forget(fd);
    return glibc_close()(fd);
}

_Static_assert(LAYOUTD_EPOLL_CTL_ADD == EPOLL_CTL_ADD && LAYOUTD_EPOLL_CTL_DEL == EPOLL_CTL_DEL
               && LAYOUTD_EPOLL_CTL_MOD == EPOLL_CTL_MOD, "epoll operations");
_Static_assert(LAYOUTD_EPOLLIN == EPOLLIN && LAYOUTD_EPOLLOUT == EPOLLOUT && LAYOUTD_EPOLLET == EPOLLET,
               "epoll events");

int layoutd_test_epoll_create(void) { return epoll_create1(0); }

int layoutd_test_epoll_del_directly(int epfd, int fd) {
    return (int)syscall(SYS_epoll_ctl, epfd, EPOLL_CTL_DEL, fd, NULL);
}

int layoutd_test_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data, int as_libevent) {
    struct epoll_event event = {.events = events, .data = {.u64 = data}};
    return change_interest(epfd, op, fd, &event, as_libevent);
}
