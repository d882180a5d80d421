#ifndef BGBENCH_CONVERT_H
#define BGBENCH_CONVERT_H
#include <stdint.h>

/* A double truncated toward zero to int64_t, with no range check: one instruction
 * (cvttsd2si on x86-64), where Swift's Int64(Double) compares against both ends of the range
 * first. Only for a value its caller has shown to be finite and inside (-2^63, 2^63): the
 * conversion of anything else is undefined. Swift reaches it through
 * `Int64(uncheckedTruncating:)` (Sources/BGBench/Engine/Time.swift), and the optimiser
 * inlines it (static inline). */
static inline int64_t bg_int64_truncating(double x) { return (int64_t)x; }

#endif
