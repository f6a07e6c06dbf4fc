# cython: language_level=3
"""The thread count of the parallel kernels: OpenMP's, which ``OMP_NUM_THREADS`` and
threadpoolctl (``threadpool_limits(n)``, ``user_api="openmp"``) set."""

from nbayes._kernels._omp cimport NBAYES_OPENMP, omp_get_max_threads, omp_set_num_threads


def max_threads():
    """How many threads a parallel kernel started from this thread runs on."""
    return omp_get_max_threads()


def set_max_threads(int n):
    """Set the number of threads of the parallel kernels started from this thread."""
    if n < 1:
        raise ValueError(f"the number of threads must be at least 1, got {n}")
    omp_set_num_threads(n)


#: whether this build runs the parallel loops on several threads (built with OpenMP)
OPENMP = bool(NBAYES_OPENMP)
