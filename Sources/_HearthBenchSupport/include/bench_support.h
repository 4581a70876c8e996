// Benchmark-only C support (not API): an allocation counter and a named
// region that valgrind's callgrind can be told to count.
#ifndef HEARTH_BENCH_SUPPORT_H
#define HEARTH_BENCH_SUPPORT_H

#include <stdint.h>

/// Heap allocations made by the calling thread so far (malloc, calloc,
/// realloc, posix_memalign, aligned_alloc, memalign), counted by thin
/// wrappers over glibc's own allocator. Only executables that link this
/// target count. Per thread: a workload measures the thread it runs on.
uint64_t hearth_allocation_count(void);

/// 1 when the counter above counts; 0 in a build under AddressSanitizer or
/// ThreadSanitizer, where the sanitizer's allocator must stand and the count
/// stays 0.
int hearth_allocation_counting(void);

/// Bytes glibc's allocator has handed out and not taken back, over every
/// arena: small blocks in use plus mmapped large ones (mallinfo2). For
/// before/after differences around building a state (growth benchmarks).
uint64_t hearth_heap_bytes_in_use(void);

/// Calls body(context). Never inlined: `valgrind --tool=callgrind
/// --collect-atstart=no --toggle-collect=hearth_measured_region` counts the
/// instructions executed inside it and nothing else.
void hearth_measured_region(void (*body)(void *), void *context);

#endif
