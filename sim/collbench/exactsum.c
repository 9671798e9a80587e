/*
 * exactsum.c: Shewchuk's partials with a correctly rounded result (the
 * method of Python's math.fsum, written here from the published algorithm).
 */
#include "exactsum.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void exact_sum_init(exact_sum *sum)
{
    sum->count = 0;
}

void exact_sum_add(exact_sum *sum, double x)
{
    int kept = 0;
    for (int i = 0; i < sum->count; i++) {
        double y = sum->partials[i];
        if (fabs(x) < fabs(y)) {
            double t = x;
            x = y;
            y = t;
        }
        const double hi = x + y;
        const double lo = y - (hi - x); /* exact: hi + lo == x + y */
        if (lo != 0.0)
            sum->partials[kept++] = lo;
        x = hi;
    }
    sum->partials[kept++] = x;
    sum->count = kept;
}

double exact_sum_round(const exact_sum *sum, int *residual_sign)
{
    int n = sum->count;
    double hi = 0.0, lo = 0.0;
    *residual_sign = 0;
    if (n == 0)
        return 0.0;
    hi = sum->partials[--n];
    /* add partials from the top while the sum stays exact */
    while (n > 0) {
        const double x = hi;
        const double y = sum->partials[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo != 0.0)
            break;
    }
    /* exact = hi + lo + (partials below n), the latter smaller than lo's ulp */
    if (lo == 0.0)
        return hi;
    int sign = lo > 0 ? 1 : -1;
    if (n > 0 && ((lo < 0 && sum->partials[n - 1] < 0) || (lo > 0 && sum->partials[n - 1] > 0))) {
        /* hi + lo was a tie rounded to even, but the rest breaks the tie */
        const double y = lo * 2.0;
        const double x = hi + y;
        if (x - hi == y) {
            hi = x;
            sign = -sign;
        }
    }
    *residual_sign = sign;
    return hi;
}

float exact_sum_round_float(double rounded, int residual_sign)
{
    float nearest = (float)rounded;
    if ((double)nearest == rounded || isinf(nearest))
        return nearest; /* exact in float: the residual cannot move it past a midpoint */
    const float other = rounded > (double)nearest ? nextafterf(nearest, INFINITY)
                                                  : nextafterf(nearest, -INFINITY);
    const double midpoint = ((double)nearest + (double)other) / 2.0; /* exact in double */
    if (midpoint != rounded || residual_sign == 0)
        return nearest; /* not a tie, or a true tie (already ties-to-even) */
    const float up = nearest > other ? nearest : other;
    const float down = nearest > other ? other : nearest;
    return residual_sign > 0 ? up : down;
}

/* Maps a double's bits to an integer that orders like the double. */
static int64_t ordered_double(double x)
{
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
}

static int32_t ordered_float(float x)
{
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT32_MIN - i : i;
}

double ulp_distance_double(double a, double b)
{
    const int64_t ia = ordered_double(a), ib = ordered_double(b);
    return ia > ib ? (double)((uint64_t)ia - (uint64_t)ib) : (double)((uint64_t)ib - (uint64_t)ia);
}

double ulp_distance_float(float a, float b)
{
    const int64_t ia = ordered_float(a), ib = ordered_float(b);
    return (double)(ia > ib ? ia - ib : ib - ia);
}
