// Include FIRST in every elementwise translation unit (before any other
// header, so that every function of the unit, inline ones included, is
// compiled with the same options and can be inlined into the others).
//
// PyTorch CPU fuses a*b+c into one FMA in some places (float add with alpha,
// complex division) and not in others (complex multiplication); matching it
// bit for bit needs fused operations exactly where we write std::fma and
// nowhere else. The kernel library is built with -std=gnu++20 (x86-64-v3/v4),
// where GCC contracts freely (-ffp-contract=fast), so switch it off here.
//
// Caveat (GCC 12): the vectorizer's complex-multiply pattern emits fused
// vfmaddsub for interleaved (re, im) data even with contraction off. The
// elementwise loops therefore keep complex values split into separate re/im
// arrays (see Block in kernels/elementwise/types.h); tests in test_elementwise*.cpp
// check the unfused results.
//
// no-trapping-math: the kernels never read floating-point exception flags,
// and without it GCC keeps some branch-free selects of vec_math.h (log's
// special values after its subnormal scaling) as branches, which stops the
// loop from vectorizing. It changes no result.
#pragma once

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off", "no-trapping-math")
#endif
