/* A progress bar for the long commands (verify, diff, record): drawn only
 * when stdout is a terminal, at most ten times a second, and erased when
 * done, so pipes and CI logs never see it. FIXSTEP_PROGRESS=1 draws it
 * anywhere (the tests use it), FIXSTEP_PROGRESS=0 never. */
#ifndef FXS_CLI_PROGRESS_H
#define FXS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_progress {
	bool on, drawn;
	const char *what; /* "verifying", "comparing", "recording" */
	uint64_t total, last_ns;
} cli_progress;

/* total: the units of done at the end (bytes, ticks); 0: no bar */
void cli_progress_init(cli_progress *p, const char *what, uint64_t total, bool quiet);
void cli_progress_update(cli_progress *p, uint64_t done, uint64_t ticks);
void cli_progress_end(cli_progress *p);

#endif
