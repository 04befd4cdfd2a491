// mimalloc (Debian's libmimalloc-dev): linked into the layoutd executable, it replaces malloc and
// free for the whole process (Swift runtime, Foundation, libevent). Measured: docs/benchmarks.md,
// "Allocator".
#include <mimalloc.h>
