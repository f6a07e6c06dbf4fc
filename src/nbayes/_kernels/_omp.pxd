# The OpenMP runtime's thread count (one thread where nbayes was built without OpenMP).
cdef extern from "_omp.h" nogil:
    int omp_get_max_threads()
    void omp_set_num_threads(int n)
    int omp_get_thread_num()
    int NBAYES_OPENMP
