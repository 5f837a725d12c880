/* The long commands' progress bar (progress.h). */
#include "progress.h"

#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_progress_init(cli_progress *p, const char *what, uint64_t total, bool quiet)
{
	const char *force = getenv("FIXSTEP_PROGRESS");
#ifdef __EMSCRIPTEN__
	/* emscripten's isatty says yes for a pipe too: never draw under node unless asked */
	bool tty = false;
#else
	bool tty = isatty(STDOUT_FILENO);
#endif
	if (force && strcmp(force, "1") == 0)
		tty = true;
	else if (force && strcmp(force, "0") == 0)
		tty = false;
	p->on = !quiet && tty && total > 0;
	p->what = what;
	p->total = total;
	p->last_ns = cli_now_ns();
	p->drawn = false;
}

void cli_progress_update(cli_progress *p, uint64_t done, uint64_t ticks)
{
	if (!p->on)
		return;
	uint64_t now = cli_now_ns();
	if (now - p->last_ns < 100000000ull && done != p->total)
		return;
	p->last_ns = now;
	if (done > p->total)
		done = p->total;
	int width = 40, fill = (int)((done * (uint64_t)width) / p->total);
	printf("\r%s [", p->what);
	for (int i = 0; i < width; ++i)
		putchar(i < fill ? '#' : '.');
	printf("] %" PRIu64 " ticks %3u%%", ticks, (unsigned)(done * 100 / p->total));
	fflush(stdout);
	p->drawn = true;
}

void cli_progress_end(cli_progress *p)
{
	if (p->on && p->drawn) {
		printf("\r\033[K");
		fflush(stdout);
	}
}
