/* The library's version and its formats' versions at run time (fixstep.h). */
#include "fixstep/fixstep.h"
#include "state/state.h"

#define FXS_STR2(x) #x
#define FXS_STR(x) FXS_STR2(x)

uint32_t fxs_version(void)
{
	return FXS_VERSION;
}

const char *fxs_version_string(void)
{
	return FXS_STR(FXS_VERSION_MAJOR) "." FXS_STR(FXS_VERSION_MINOR) "." FXS_STR(FXS_VERSION_PATCH);
}

uint32_t fxs_snapshot_version(void)
{
	return FXS_STATE_VERSION;
}

uint32_t fxs_snapshot_version_oldest(void)
{
	return FXS_STATE_VERSION_OLDEST;
}
