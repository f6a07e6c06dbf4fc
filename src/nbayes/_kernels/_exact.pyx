# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Exact sums of float64 statistics, per entry (compiled; the NumPy twin is
nbayes.stats.expansion): canonical expansions of sums of floats, and the Gaussian moment
cells of stats.moment_sums, each result certified or reported uncertified (``ok`` 0), in which
case the caller takes the exact integer path. Built with -ffp-contract=off: every operation is
the IEEE operation written (an error-free transformation fused by the compiler is not one).
"""

import numpy as np

cdef extern from *:
    """
    #include <math.h>
    #include <float.h>
    #include <stdint.h>
    #include <string.h>

    #define NB_CAP 320   /* parts one sum may gather */
    #define NB_OUT 8     /* parts of an expansion the kernels return (longer: uncertified) */
    #define NB_PASSES 6

    static inline void nb_two_sum(double a, double b, double* s, double* e) {
        double x = a + b, bb = x - a;
        *e = (a - (x - bb)) + (b - bb);
        *s = x;
    }

    /* p + e = a * b exactly, or 0 where the product over- or underflows */
    static inline int nb_two_prod(double a, double b, double* p, double* e) {
        if (a == 0.0 || b == 0.0) {
            *p = 0.0; *e = 0.0;
            return isfinite(a) && isfinite(b);
        }
        double x = a * b, ax = fabs(x);
        if (!(ax >= 0x1p-900 && ax <= 0x1p1000)) return 0;
        *p = x;
        *e = fma(a, b, -x);
        return 1;
    }

    static inline uint64_t nb_bits(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
    static inline double nb_double(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }

    /* the gap from |x| (finite) to the next larger magnitude, 2**(E - 1075) */
    static inline double nb_spacing(double x) {
        uint64_t e = (nb_bits(x) >> 52) & 0x7ff;
        if (e > 52) return nb_double((e - 52) << 52);
        return nb_double(e ? (uint64_t)1 << (e - 1) : 1);
    }

    /* a power of two above float64's smallest normal (the gap below it is half the gap above) */
    static inline int nb_pow2(double x) {
        uint64_t u = nb_bits(x);
        return (u & 0xfffffffffffffULL) == 0 && ((u >> 52) & 0x7ff) >= 2;
    }

    static inline int nb_even(double x) { return (nb_bits(x) & 1) == 0; }

    /* c[0..n) (nonzero, most significant first) is a canonical expansion: each next part lies
       within half the gap to c's neighbour on its side (ties: decided by the part after, or to
       even) */
    static int nb_verified(const double* c, int n) {
        for (int i = 0; i + 1 < n; i++) {
            double ci = c[i], nx = c[i + 1], after = i + 2 < n ? c[i + 2] : 0.0;
            double ac = fabs(ci);
            if (!(ac < DBL_MAX)) return 0;
            int normal = ac > 0x1p-1022;
            int below = (signbit(ci) != signbit(nx)) && nb_pow2(ac);
            double ulp = nb_spacing(ac), dist = fabs(nx) * (below ? 4.0 : 2.0);
            if (dist < ulp) continue;
            if (dist == ulp) {
                int back = after != 0.0 && signbit(after) != signbit(nx);
                if ((after == 0.0 && nb_even(ac) && normal) || back) continue;
            }
            return 0;
        }
        return 1;
    }

    static void nb_sort(double* c, int n, int descending) {
        for (int i = 1; i < n; i++) {
            double v = c[i], av = fabs(v);
            int j = i - 1;
            while (j >= 0 && (descending ? fabs(c[j]) < av : fabs(c[j]) > av)) { c[j + 1] = c[j]; j--; }
            c[j + 1] = v;
        }
    }

    static int nb_compact(double* c, int n) {
        int m = 0;
        for (int i = 0; i < n; i++) if (c[i] != 0.0) c[m++] = c[i];
        return m;
    }

    /* The canonical expansion of sum(c[0..n)) into out (*L parts, at least 1, zeros +0);
       c is overwritten. 1 when certified. */
    static int nb_canon(double* c, int n, double* out, int* L) {
        for (int i = 0; i < n; i++) if (!isfinite(c[i])) return 0;
        n = nb_compact(c, n);
        nb_sort(c, n, 1);
        int good = nb_verified(c, n);
        for (int pass = 0; pass < NB_PASSES && !good; pass++) {
            nb_sort(c, n, 0);
            double s = c[0];
            for (int i = 1; i < n; i++) nb_two_sum(c[i], s, &s, &c[i - 1]);
            c[n - 1] = s;
            if (!isfinite(s)) return 0;
            n = nb_compact(c, n);
            nb_sort(c, n, 1);
            good = nb_verified(c, n);
        }
        if (!good || n > NB_OUT) return 0;
        if (n == 0) { out[0] = 0.0; *L = 1; return 1; }
        for (int i = 0; i < n; i++) out[i] = c[i] + 0.0;
        *L = n;
        return 1;
    }

    /* buf[*n ..] += sign * x * y for expansions x (lx parts), y (ly); 0 past NB_CAP or inexact */
    static int nb_add_prod(double* buf, int* n, const double* x, int lx, const double* y, int ly, double sign) {
        if (*n + 2 * lx * ly > NB_CAP) return 0;
        for (int i = 0; i < lx; i++)
            for (int j = 0; j < ly; j++) {
                double p, e;
                if (!nb_two_prod(x[i], y[j], &p, &e)) return 0;
                buf[(*n)++] = sign * p;
                buf[(*n)++] = sign * e;
            }
        return 1;
    }

    static int nb_add_parts(double* buf, int* n, const double* x, int lx, double sign) {
        if (*n + lx > NB_CAP) return 0;
        for (int i = 0; i < lx; i++) buf[(*n)++] = sign * x[i];
        return 1;
    }

    /* Whether q = RN(N / W), given R = N - q W exactly (canonical, r[0..lr)): R must lie strictly
       within half the gap from q to its neighbour on R's side, times W; at exactly half the gap
       (a tie) the even neighbour is RN, written to *q. 1: certified; 0: not decided here;
       -1: q is not RN (R too large). */
    static int nb_rounded(const double* r, int lr, const double* w, int lw, double* q) {
        double qq = *q, w0 = w[0], buf[NB_CAP], e[NB_OUT];
        if (lr == 1 && r[0] == 0.0) return 1;  /* exact */
        double aq = fabs(qq);
        if (!(aq < DBL_MAX)) return 0;
        int below = signbit(r[0]) != signbit(qq) && nb_pow2(aq);
        double ulp = nb_spacing(aq);
        double bound = 0.0, low_w = w0;
        for (int i = 0; i < lr; i++) bound += fabs(r[i]);
        for (int i = 1; i < lw; i++) low_w -= fabs(w[i]);
        double room = ulp * (low_w * (1.0 - 0x1p-40));
        if (room >= 0x1p-1000 && (below ? 4.0 : 2.0) * bound * (1.0 + 0x1p-40) < room) return 1;
        /* near half the gap: compare R with half the gap times W exactly (E = R -+ hg W) */
        double hg = ulp * (below ? 0.25 : 0.5), side = signbit(r[0]) ? -1.0 : 1.0;
        int n = 0, le;
        if (!(hg >= 0x1p-1000)) return 0;
        if (!nb_add_parts(buf, &n, r, lr, 1.0)) return 0;
        for (int i = 0; i < lw; i++) {
            double t = -side * hg * w[i];
            if (t != 0.0 && !(fabs(t) >= 0x1p-1022)) return 0;  /* the scaling must stay exact */
            if (!nb_add_parts(buf, &n, &t, 1, 1.0)) return 0;
        }
        if (!nb_canon(buf, n, e, &le)) return 0;
        if (e[0] != 0.0) return signbit(e[0]) != signbit(side) ? 1 : -1;
        /* a tie: N / W is the midpoint between q and its neighbour on R's side; the even one */
        if (!(aq > 0x1p-1022)) return 0;
        if (!nb_even(aq)) {
            double nq = nextafter(qq, side * INFINITY);
            if (!(fabs(nq) < DBL_MAX)) return 0;
            *q = nq + 0.0;
        }
        return 1;
    }

    /* *q = RN(N / W) for canonical expansions N, W (W > 0), certified (1) or not (0): a candidate
       by a float division corrected by the rounding remainder, then the exact remainder
       R = N - q W decides (nb_rounded); a candidate it rejects is refined once by R / W. */
    static int nb_quotient(const double* nn, int ln, const double* w, int lw, double* q) {
        double buf[NB_CAP], r[NB_OUT];
        int n, lr;
        double w0 = w[0];
        if (!(w0 > 0.0)) return 0;
        double q0 = nn[0] / w0;
        double rem = fma(-q0, w0, nn[0]);
        for (int i = 1; i < ln; i++) rem += nn[i];
        for (int i = 1; i < lw; i++) rem -= q0 * w[i];
        double qq = q0 + rem / w0;
        for (int attempt = 0; attempt < 2; attempt++) {
            if (!isfinite(qq)) return 0;
            n = 0;
            if (!nb_add_parts(buf, &n, nn, ln, 1.0) || !nb_add_prod(buf, &n, &qq, 1, w, lw, -1.0)) return 0;
            if (!nb_canon(buf, n, r, &lr)) return 0;
            *q = qq + 0.0;
            int got = nb_rounded(r, lr, w, lw, q);
            if (got >= 0) return got;
            qq = qq + r[0] / w0;
        }
        return 0;
    }

    /* S1, S2 parts of one side of a cell: the stored expansions (has_sums) or from W, mean, m2 */
    static int nb_side(double* b1, int* n1, double* b2, int* n2, int has_sums, const double* w, int lw,
                       double mean, double m2, const double* s1, int l1, const double* s2, int l2, double sign) {
        if (has_sums)
            return nb_add_parts(b1, n1, s1, l1, sign) && nb_add_parts(b2, n2, s2, l2, sign);
        if (!nb_add_parts(b2, n2, &m2, 1, sign)) return 0;
        for (int k = 0; k < lw; k++) {
            double p, e, pe[2];
            if (!nb_two_prod(w[k], mean, &p, &e)) return 0;  /* W mean = p + e */
            pe[0] = p; pe[1] = e;
            if (!nb_add_parts(b1, n1, pe, 2, sign) || !nb_add_prod(b2, n2, pe, 2, &mean, 1, sign)) return 0;
        }
        return 1;
    }
    """
    int nb_canon(double* c, int n, double* out, int* L) noexcept nogil
    int nb_quotient(const double* nn, int ln, const double* w, int lw, double* q) noexcept nogil
    int nb_side(double* b1, int* n1, double* b2, int* n2, int has_sums, const double* w, int lw,
                double mean, double m2, const double* s1, int l1, const double* s2, int l2, double sign) noexcept nogil
    int nb_add_prod(double* buf, int* n, const double* x, int lx, const double* y, int ly, double sign) noexcept nogil
    int nb_add_parts(double* buf, int* n, const double* x, int lx, double sign) noexcept nogil
    enum: NB_CAP
    enum: NB_OUT


#: parts of an expansion the kernels return
OUT = NB_OUT


cdef int _gather(const double[:, ::1] a, Py_ssize_t i, double* out) noexcept nogil:
    """Column i of a (parts x entries), nonzero trailing parts kept: the count."""
    cdef int n = <int>a.shape[0], k
    while n > 1 and a[n - 1, i] == 0.0:
        n -= 1
    for k in range(n):
        out[k] = a[k, i]
    return n


def canonical(const double[:, ::1] parts):
    """(out, ok): per entry (column) the canonical expansion of the sum of ``parts`` (rows), OUT
    rows, and whether it is certified."""
    cdef Py_ssize_t m = parts.shape[0], n = parts.shape[1], i, k
    if m > NB_CAP:
        return np.zeros((OUT, n)), np.zeros(n, dtype=np.uint8)
    out_a = np.zeros((OUT, n))
    ok_a = np.zeros(n, dtype=np.uint8)
    cdef double[:, ::1] out = out_a
    cdef unsigned char[::1] ok = ok_a
    cdef double buf[NB_CAP]
    cdef double res[NB_OUT]
    cdef int L
    with nogil:
        for i in range(n):
            for k in range(m):
                buf[k] = parts[k, i]
            if nb_canon(buf, <int>m, res, &L):
                ok[i] = 1
                for k in range(L):
                    out[k, i] = res[k]
    return out_a, ok_a.view(bool)


def moment_cells(const double[:, ::1] aw, const double[::1] amean, const double[::1] am2,
                 const double[:, ::1] as1, const double[:, ::1] as2, bint a_sums,
                 const double[:, ::1] bw, const double[::1] bmean, const double[::1] bm2,
                 const double[:, ::1] bs1, const double[:, ::1] bs2, bint b_sums,
                 const double[:, ::1] W, double sign):
    """Per cell (column) of a + sign * b: mean, m2, the canonical expansions s1, s2 (OUT rows),
    need (mean and m2 do not give S1, S2 back) and ok (certified); see stats.moment_sums."""
    cdef Py_ssize_t n = W.shape[1], i
    mean_a, m2_a = np.zeros(n), np.zeros(n)
    s1_a, s2_a = np.zeros((OUT, n)), np.zeros((OUT, n))
    need_a, ok_a = np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.uint8)
    cdef double[::1] mean = mean_a, m2 = m2_a
    cdef double[:, ::1] s1 = s1_a, s2 = s2_a
    cdef unsigned char[::1] need = need_a, ok = ok_a
    cdef double b1[NB_CAP]
    cdef double b2[NB_CAP]
    cdef double w[NB_OUT]
    cdef double x[NB_OUT]
    cdef double y[NB_OUT]
    cdef double t[NB_OUT]
    cdef double c1[NB_OUT]
    cdef double c2[NB_OUT]
    cdef double num[NB_OUT]
    cdef double wm[2 * NB_OUT]
    cdef double g1[NB_CAP]
    cdef double g2[NB_CAP]
    cdef int n1, n2, lw, la, lb, l1, l2, lnum, lz, k, good, nwm
    cdef double mu, v, neg_v
    if max(W.shape[0], aw.shape[0], bw.shape[0]) > NB_OUT or max(as1.shape[0], as2.shape[0], bs1.shape[0],
                                                                 bs2.shape[0]) > NB_CAP:
        return {"mean": mean_a, "m2": m2_a, "s1": s1_a, "s2": s2_a, "need": need_a.view(bool), "ok": ok_a.view(bool)}
    with nogil:
        for i in range(n):
            lw = _gather(W, i, w)
            if w[0] == 0.0:  # no weight: no mean, no spread, no sums
                ok[i] = 1
                continue
            n1 = 0
            n2 = 0
            la = _gather(aw, i, x)
            lb = _gather(bw, i, y)
            l1 = _gather(as1, i, g1) if a_sums else 0
            l2 = _gather(as2, i, g2) if a_sums else 0
            if not nb_side(b1, &n1, b2, &n2, a_sums, x, la, amean[i], am2[i], g1, l1, g2, l2, 1.0):
                continue
            l1 = _gather(bs1, i, g1) if b_sums else 0
            l2 = _gather(bs2, i, g2) if b_sums else 0
            if not nb_side(b1, &n1, b2, &n2, b_sums, y, lb, bmean[i], bm2[i], g1, l1, g2, l2, sign):
                continue
            if not (nb_canon(b1, n1, c1, &l1) and nb_canon(b2, n2, c2, &l2)):
                continue
            if not nb_quotient(c1, l1, w, lw, &mu):
                continue
            # S2 W - S1**2: W times the centred sum of squares
            n1 = 0
            if not (nb_add_prod(b1, &n1, c2, l2, w, lw, 1.0) and nb_add_prod(b1, &n1, c1, l1, c1, l1, -1.0)
                    and nb_canon(b1, n1, num, &lnum) and nb_quotient(num, lnum, w, lw, &v)):
                continue
            if not (num[0] > 0.0 or (num[0] == 0.0 and v == 0.0)):
                continue  # a negative spread: the integer path clamps it
            if mu == 0.0 and c1[0] != 0.0:
                continue
            # need: S1 != W mu or S2 != W mu**2 + m2
            n1 = 0
            nwm = 0
            good = nb_add_parts(b1, &n1, c1, l1, 1.0) and nb_add_prod(wm, &nwm, w, lw, &mu, 1, -1.0) \
                and nb_add_parts(b1, &n1, wm, nwm, 1.0) and nb_canon(b1, n1, t, &lz)
            if not good:
                continue
            need[i] = not (lz == 1 and t[0] == 0.0)
            if not need[i]:  # S1 = W mu: is S2 = W mu**2 + m2?
                n2 = 0
                neg_v = -v
                good = nb_add_parts(b2, &n2, c2, l2, 1.0) and nb_add_prod(b2, &n2, wm, nwm, &mu, 1, 1.0) \
                    and nb_add_parts(b2, &n2, &neg_v, 1, 1.0) and nb_canon(b2, n2, t, &lz)
                if not good:
                    continue
                need[i] = not (lz == 1 and t[0] == 0.0)
            mean[i] = mu
            m2[i] = v
            for k in range(l1):
                s1[k, i] = c1[k]
            for k in range(l2):
                s2[k, i] = c2[k]
            ok[i] = 1
    return {"mean": mean_a, "m2": m2_a, "s1": s1_a, "s2": s2_a, "need": need_a.view(bool), "ok": ok_a.view(bool)}
