// Internal C helpers for HearthGeo's vector kernels. Not API.
//
// Each helper exists because Swift 6.3 cannot express it directly and the
// missing piece stops LLVM from vectorising a hot loop:
//
//  - hearth_sqrt: Double.squareRoot() on Linux is lowered with errno
//    semantics, which keeps the loop scalar. The elementwise builtin is a
//    correctly rounded IEEE square root with no errno side effect
//    (sqrt(-x) is NaN, sqrt(NaN) is NaN).
//  - hearth_int32_from_nonnegative: Int32(someDouble) in Swift checks the
//    range and traps, a branch per lane. Callers clamp the argument into
//    [0, 2^31) first (NaN replaced), so the plain truncating conversion is
//    defined; for a non-negative argument truncation is the floor. 32 bits
//    because x86 has packed double<->int32 conversions from SSE2 on, while
//    the int64 ones need AVX-512.
//
//  - hearth_muladd: a*b+c that the backend fuses into one FMA instruction
//    when the target has one (C's default -ffp-contract=on emits
//    llvm.fmuladd) and evaluates as a multiply then an add when it does not.
//    Swift has no such operation: `addingProduct` always fuses, and becomes a
//    library call per lane on targets without FMA. Results therefore differ
//    in the last bit between FMA and non-FMA builds; nothing that must be
//    bit-identical across machines (grid cells) uses it.
//
// All functions are static inline so they are compiled into the calling Swift
// code and vectorise with it.
#ifndef HEARTH_SHIMS_H
#define HEARTH_SHIMS_H

#include <stdint.h>

static inline __attribute__((always_inline)) double hearth_sqrt(double x) {
  return __builtin_elementwise_sqrt(x);
}

static inline __attribute__((always_inline)) int32_t
hearth_int32_from_nonnegative(double x) {
  return (int32_t)x;
}

static inline __attribute__((always_inline)) double
hearth_muladd(double a, double b, double c) {
  return a * b + c;
}

// A hint to start loading the cache line at `p` (no fault, no effect on
// results): lets a lookup loop overlap the memory latency of many probes.
static inline __attribute__((always_inline)) void hearth_prefetch(const void *p) {
  __builtin_prefetch(p, 0, 3);
}

// What the C side of this build was compiled for, as a bit set:
// 1 = SSE4.1, 2 = AVX, 4 = AVX2, 8 = FMA, 16 = AVX-512F. Reported by the
// benchmark so a result always says which instruction set produced it.
int hearth_compiled_cpu_features(void);

#endif
