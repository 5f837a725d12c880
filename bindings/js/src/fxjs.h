/* The flat API of the JavaScript package: see fxjs.c. */
#ifndef FXJS_H
#define FXJS_H

#include "fixstep/fixstep.h"

#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define FXJS_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define FXJS_EXPORT
#endif

#endif
