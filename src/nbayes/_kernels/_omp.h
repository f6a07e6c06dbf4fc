/* OpenMP where the compiler has it; one thread where it has not (the loops stay correct). */
#ifndef NBAYES_OMP_H
#define NBAYES_OMP_H
#ifdef _OPENMP
#include <omp.h>
#define NBAYES_OPENMP 1
#else
static inline int omp_get_max_threads(void) { return 1; }
static inline void omp_set_num_threads(int n) { (void)n; }
static inline int omp_get_thread_num(void) { return 0; }
#define NBAYES_OPENMP 0
#endif
#endif
