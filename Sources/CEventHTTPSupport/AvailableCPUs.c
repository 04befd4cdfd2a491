// The CPUs this process may run on, for EventHTTP's automatic thread counts: Swift's Glibc module
// does not bring in `sched_getaffinity` or `CPU_COUNT` (they need _GNU_SOURCE).
#define _GNU_SOURCE
#include <sched.h>
#include <unistd.h>

#include "CEventHTTPSupport.h"

int layoutd_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}
