/* Row kernels of _linear.pyx, one copy per index and value type: included once per
   combination with NB_IDX (the CSR index type), NB_REAL (the values' type) and NB_NAME(x)
   (the names of this copy) defined, which it undefines at the end. Each sums every row's
   terms in CSR order, as numba's loops did: the vector width changes nothing in the sums
   (each output is its own chain of additions), so the AVX2 clone gives the same bits. */
#include "_simd.h"

/* out[i] = sum over p in row i of data[p] B[indices[p]] (rows lo..hi-1; B is d x K, out n x K) */
static NBAYES_CLONES void NB_NAME(csr_rows)(const NB_IDX* indptr, const NB_IDX* indices, const NB_REAL* data,
                                             const NB_REAL* B, Py_ssize_t K, NB_REAL* out,
                                             Py_ssize_t lo, Py_ssize_t hi) {
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t p0 = (Py_ssize_t)indptr[i], p1 = (Py_ssize_t)indptr[i + 1];
        NB_REAL* o = out + i * K;
        if (K == 1) {
            NB_REAL s = 0;
            for (Py_ssize_t p = p0; p < p1; p++)
                s = s + data[p] * B[indices[p]];
            o[0] = s;
            continue;
        }
        for (Py_ssize_t c = 0; c < K; c++)
            o[c] = 0;
        for (Py_ssize_t p = p0; p < p1; p++) {
            NB_REAL v = data[p];
            const NB_REAL* b = B + (Py_ssize_t)indices[p] * K;
            for (Py_ssize_t c = 0; c < K; c++)
                o[c] = o[c] + v * b[c];
        }
    }
}

/* out[i] = sum over p in row i of B[indices[p]], in double (rows lo..hi-1) */
static NBAYES_CLONES void NB_NAME(presence_rows)(const int64_t* indptr, const NB_IDX* indices, const NB_REAL* B,
                                                  Py_ssize_t K, double* out, Py_ssize_t lo, Py_ssize_t hi) {
    for (Py_ssize_t i = lo; i < hi; i++) {
        Py_ssize_t p0 = (Py_ssize_t)indptr[i], p1 = (Py_ssize_t)indptr[i + 1];
        double* o = out + i * K;
        if (K == 1) {
            double s = 0.0;
            for (Py_ssize_t p = p0; p < p1; p++)
                s += (double)B[indices[p]];
            o[0] = s;
            continue;
        }
        for (Py_ssize_t c = 0; c < K; c++)
            o[c] = 0.0;
        for (Py_ssize_t p = p0; p < p1; p++) {
            const NB_REAL* b = B + (Py_ssize_t)indices[p] * K;
            for (Py_ssize_t c = 0; c < K; c++)
                o[c] += (double)b[c];
        }
    }
}

#undef NB_IDX
#undef NB_REAL
#undef NB_NAME
