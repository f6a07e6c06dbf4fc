/* Vector loops of the compiled kernels.

   NBAYES_SIMD_SUM(acc): before a `for` loop whose sum into `acc` may be reassociated (OpenMP's
   simd reduction: the vector lanes sum apart and meet at the end); without OpenMP the loop
   stays in order. Only for sums that numba computed with fastmath: the sums that model files
   keep stay in their written order.

   NBAYES_SIMD: before a `for` loop whose iterations are independent (each writes its own
   element): vectorised, with no change to any result.

   NBAYES_CLONES: before a function holding a hot loop: the function is compiled for x86-64's
   baseline (SSE2), for AVX2 and for AVX-512, and the dynamic loader picks the best for the
   machine (function multiversioning, GCC >= 6 or Clang >= 14 on x86-64 Linux with glibc);
   elsewhere one version for the compiler's target. Numba compiled for the host's instruction
   set; an ahead-of-time build must not assume it. No clone changes a result, except in the
   NBAYES_SIMD_SUM sums (the lanes' order, as numba's fastmath sums differed between machines). */
#ifndef NBAYES_SIMD_H
#define NBAYES_SIMD_H

#define NBAYES_PRAGMA(x) _Pragma(#x)
#if defined(_OPENMP) && _OPENMP >= 201307  /* OpenMP 4.0's simd (not MSVC's OpenMP 2.0) */
#define NBAYES_SIMD_SUM(acc) NBAYES_PRAGMA(omp simd reduction(+:acc))
#define NBAYES_SIMD NBAYES_PRAGMA(omp simd)
#else
#define NBAYES_SIMD_SUM(acc)
#define NBAYES_SIMD
#endif

#include <stdlib.h> /* glibc: __GLIBC__ */
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && !defined(NBAYES_NO_CLONES) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 6))
#define NBAYES_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NBAYES_CLONES
#endif

#endif
