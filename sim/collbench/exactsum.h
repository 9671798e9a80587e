/*
 * exactsum.h: exact floating-point summation and correct rounding.
 *
 * The sum of any number of doubles is kept exactly as a list of
 * non-overlapping partials (Shewchuk, "Adaptive precision floating-point
 * arithmetic and fast robust geometric predicates", DCG 18, 1997), and
 * rounded once, correctly (round to nearest, ties to even), at the end.
 * Floats convert to doubles exactly, so the same accumulator serves both.
 */
#ifndef COLLBENCH_EXACTSUM_H
#define COLLBENCH_EXACTSUM_H

/* Enough for any finite sum: partials do not overlap, and doubles span
 * fewer than 2100 bits of exponent range at 53 bits each. */
#define EXACT_SUM_MAX_PARTIALS 48

typedef struct exact_sum {
    double partials[EXACT_SUM_MAX_PARTIALS]; /* increasing magnitude */
    int count;
} exact_sum;

void exact_sum_init(exact_sum *sum);
/* Adds x (finite) exactly. */
void exact_sum_add(exact_sum *sum, double x);
/* The exact sum rounded to the nearest double; *residual_sign is the sign of
 * (exact - rounded): -1, 0 or 1. */
double exact_sum_round(const exact_sum *sum, int *residual_sign);
/* The exact sum rounded to the nearest float, from exact_sum_round's result
 * and residual sign (no double rounding). */
float exact_sum_round_float(double rounded, int residual_sign);

/* Distance in ulps between two finite doubles / floats of the same format. */
double ulp_distance_double(double a, double b);
double ulp_distance_float(float a, float b);

#endif
