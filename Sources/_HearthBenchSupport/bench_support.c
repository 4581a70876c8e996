// Heap allocation counting for hearth-bench.
//
// glibc supports replacing malloc by defining the functions in the
// executable (the dynamic linker binds every library's calls to them); the
// replacements here forward to glibc's exported __libc_* entry points, so
// the allocator is unchanged and only a thread-local increment is added (no
// atomic: a locked add on every allocation slowed allocation-heavy workloads
// such as CSV parsing measurably).
// free is forwarded too, as glibc's manual asks of a replacement.

#include "bench_support.h"

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread uint64_t allocations;

// Under a sanitizer the sanitizer's own malloc must win: a replacement here
// runs before the sanitizer has started and takes its place (the test suite
// crashed at start under --sanitize=address). The counter then stays at 0.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEARTH_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEARTH_SANITIZED 1
#endif

static inline void count_one(void) { allocations += 1; }

uint64_t hearth_allocation_count(void) { return allocations; }

#ifdef HEARTH_SANITIZED
int hearth_allocation_counting(void) { return 0; }
#else
int hearth_allocation_counting(void) { return 1; }
#endif

#ifndef HEARTH_SANITIZED

void *malloc(size_t size) {
  count_one();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_one();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  count_one();
  return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
  count_one();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_one();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count_one();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *out = pointer;
  return 0;
}

#endif  // HEARTH_SANITIZED

__attribute__((noinline)) void hearth_measured_region(void (*body)(void *), void *context) {
  body(context);
  // Keeps the call from becoming a tail call (the region must stay on the stack).
  __asm__ volatile("" ::: "memory");
}

#include <malloc.h>

uint64_t hearth_heap_bytes_in_use(void) {
  // Small blocks in use (every arena) plus the mmapped large ones.
  struct mallinfo2 info = mallinfo2();
  return (uint64_t)(info.uordblks + info.hblkhd);
}
