/* fixmath_glue umbrella header: the numeric layer of fixstep. */
#ifndef FXG_H
#define FXG_H
#include "fxg_scalar.h"
#include "fxg_vec3.h"
#include "fxg_quat.h"
#include "fxg_mat3.h"
#include "fxg_trig.h"
#endif
