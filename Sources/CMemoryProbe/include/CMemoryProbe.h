#ifndef CMEMORYPROBE_H
#define CMEMORYPROBE_H
#include <stddef.h>

/// Bytes glibc's malloc has handed out and not had back (every arena and the mmapped blocks:
/// mallinfo2's uordblks + hblkhd), for layout-bench's memory probe; 0 on another C library.
/// Swift's Glibc module does not import <malloc.h>, hence this one function in C.
size_t layout_bench_live_bytes(void);

#endif
