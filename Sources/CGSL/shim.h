#ifndef BGBENCH_CGSL_SHIM_H
#define BGBENCH_CGSL_SHIM_H
// The GSL headers bgbench uses. Swift 6 rejects reading GSL's mutable C globals (such as
// gsl_rng_mt19937), so any such global is reached through a static inline function here.
#include <gsl/gsl_errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_version.h>

static inline const gsl_rng_type *bgbench_gsl_rng_mt19937(void) { return gsl_rng_mt19937; }

static inline const char *bgbench_gsl_version(void) { return gsl_version; }

/// Turns GSL's abort-on-error handler off; callers check status codes instead.
static inline void bgbench_gsl_disable_abort(void) { gsl_set_error_handler_off(); }
#endif
