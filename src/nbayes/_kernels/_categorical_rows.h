/* value_range's row loop (_categorical.pyx), one copy per type of X: included once per type
   with NB_VALUE (the type), NB_FLOAT (1 for float and double) and NB_NAME(x) defined, which
   it undefines at the end. Rows lo..hi-1 of X (C order, d columns) update each column's
   running min (mn) and max (mx) and, for floats, mark frac[j] where a value has a fraction.
   A min or a max is the same whatever the order. */
#include "_simd.h"

#if NB_FLOAT
/* numba's loop: a NaN is skipped; the stores are rare once the extremes are found, so the
   tests branch (vectorised, they become masked stores); floor inlines as one instruction in
   the AVX2 and AVX-512 clones */
static NBAYES_CLONES void NB_NAME(range_rows)(const NB_VALUE* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                               double* restrict mn, double* restrict mx,
                                               double* restrict frac) {
    for (Py_ssize_t i = lo; i < hi; i++) {
        const NB_VALUE* x = X + i * d;
        for (Py_ssize_t j = 0; j < d; j++) {
            double v = (double)x[j];
            if (v == v) {
                if (v < mn[j])
                    mn[j] = v;
                if (v > mx[j])
                    mx[j] = v;
                if (v != floor(v))
                    frac[j] = 1.0;
            }
        }
    }
}
#else
/* integers: min and max in their own type (a conversion to double is monotonic: the extremes
   convert after), branch-free so that it vectorises; rows lo..hi-1 with lo < hi, mn and mx
   start at row lo */
static NBAYES_CLONES void NB_NAME(range_rows)(const NB_VALUE* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                               NB_VALUE* restrict mn, NB_VALUE* restrict mx) {
    for (Py_ssize_t j = 0; j < d; j++)
        mn[j] = mx[j] = X[lo * d + j];
    for (Py_ssize_t i = lo + 1; i < hi; i++) {
        const NB_VALUE* x = X + i * d;
        for (Py_ssize_t j = 0; j < d; j++) {
            NB_VALUE v = x[j];
            mn[j] = v < mn[j] ? v : mn[j];
            mx[j] = v > mx[j] ? v : mx[j];
        }
    }
}
#endif

#undef NB_VALUE
#undef NB_FLOAT
#undef NB_NAME
