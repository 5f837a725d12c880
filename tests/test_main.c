/* The test runner: every registered test, in name order, one line each and
 * "N passed, N failed" at the end. With -j N (default: the machine's cores)
 * the tests run in N worker processes that take them from a shared queue;
 * each test's lines are still printed together, in name order, as soon as
 * the tests before it are done. A worker that dies in a test (a crash, a
 * sanitizer's report) fails that test, and another worker takes its place. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

typedef struct {
	const char *name;
	test_fn fn;
	int slow;
} test_entry;

static test_entry *tests;
static int test_count, test_cap;
int test_quick;
int test_failed;

void test_register(const char *name, test_fn fn, int slow)
{
	if (test_count == test_cap) {
		test_cap = test_cap ? test_cap * 2 : 64;
		tests = realloc(tests, (size_t)test_cap * sizeof *tests);
		if (!tests)
			abort();
	}
	tests[test_count++] = (test_entry){ name, fn, slow };
}

int test_slow_factor(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return 3;
#else
	double load = 0;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = 0;
		fclose(f);
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 && load >= (double)cores ? 3 : 1;
#endif
}

void test_fail(const char *file, int line, const char *msg)
{
	if (!test_failed)
		printf("  %s:%d: %s\n", file, line, msg);
	test_failed = 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const test_entry *)a)->name, ((const test_entry *)b)->name);
}

/* Runs test i: its result line; whether it passed. */
static int run_one(int i)
{
	test_failed = 0;
	clock_t t0 = clock();
	tests[i].fn();
	double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
	printf("%s %s (%.0f ms)\n", test_failed ? "FAIL" : "ok  ", tests[i].name, ms);
	fflush(stdout);
	return !test_failed;
}

/* ---- workers ---- */

/* Between a worker and the runner, around each test's own output:
 * "\001B <index>\n" ... "\001E <index> <passed>\n". */
#define MARK '\001'

typedef struct worker {
	pid_t pid;
	int fd;    /* its output; -1 when done */
	char *buf; /* output not yet split into tests */
	size_t len, cap;
	int current; /* the test it is running, or -1 */
} worker;

typedef struct result {
	char *out; /* the test's lines */
	size_t len, cap;
	int done, passed;
} result;

static void append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + n + 1)
			c *= 2;
		char *b = realloc(*buf, c);
		if (!b)
			abort();
		*buf = b, *cap = c;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	(*buf)[*len] = 0;
}

/* A worker: tests from the queue until it is empty. */
static void worker_main(int queue, int out)
{
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	close(out);
	int32_t i;
	while (read(queue, &i, sizeof i) == (ssize_t)sizeof i) {
		printf("%cB %d\n", MARK, i);
		fflush(stdout);
		int passed = run_one(i);
		printf("%cE %d %d\n", MARK, i, passed);
		fflush(stdout);
	}
	_exit(0);
}

static void spawn(worker *w, int queue)
{
	int fd[2];
	if (pipe(fd) != 0)
		abort();
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(fd[0]);
		worker_main(queue, fd[1]);
	}
	close(fd[1]); /* (before the next fork: no other worker holds it) */
	*w = (worker){ pid, fd[0], NULL, 0, 0, -1 };
}

/* Whole lines of a worker's output: each test's lines into its result. */
static void take_lines(worker *w, result *res)
{
	size_t start = 0;
	for (size_t k = 0; k < w->len; ++k) {
		if (w->buf[k] != '\n')
			continue;
		const char *line = w->buf + start;
		size_t n = k + 1 - start;
		int i, passed;
		if (line[0] == MARK && sscanf(line + 1, "B %d", &i) == 1) {
			w->current = i;
		} else if (line[0] == MARK && sscanf(line + 1, "E %d %d", &i, &passed) == 2) {
			res[i].done = 1, res[i].passed = passed;
			w->current = -1;
		} else if (w->current >= 0) {
			append(&res[w->current].out, &res[w->current].len, &res[w->current].cap, line, n);
		}
		start = k + 1;
	}
	memmove(w->buf, w->buf + start, w->len - start);
	w->len -= start;
}

static int run_parallel(const int *sel, int n, int jobs, int *passed, int *failed)
{
	int queue[2];
	if (pipe(queue) != 0)
		return 0;
	for (int k = 0; k < n; ++k) { /* a few hundred 4-byte writes: the pipe holds them */
		int32_t i = sel[k];
		if (write(queue[1], &i, sizeof i) != (ssize_t)sizeof i)
			return 0;
	}
	close(queue[1]);
	result *res = calloc((size_t)test_count, sizeof *res);
	worker *w = calloc((size_t)jobs, sizeof *w);
	if (!res || !w)
		abort();
	for (int j = 0; j < jobs; ++j)
		spawn(&w[j], queue[0]);
	int next = 0, alive = jobs;
	while (next < n) {
		struct pollfd pfd[64];
		int np = 0, map[64];
		for (int j = 0; j < jobs && np < 64; ++j)
			if (w[j].fd >= 0)
				pfd[np] = (struct pollfd){ w[j].fd, POLLIN, 0 }, map[np++] = j;
		if (np == 0)
			break;
		if (poll(pfd, (nfds_t)np, -1) < 0 && errno != EINTR)
			break;
		for (int k = 0; k < np; ++k) {
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			worker *x = &w[map[k]];
			char chunk[8192];
			ssize_t got = read(x->fd, chunk, sizeof chunk);
			if (got > 0) {
				append(&x->buf, &x->len, &x->cap, chunk, (size_t)got);
				take_lines(x, res);
				continue;
			}
			/* the worker is gone: a test it was in failed with it */
			close(x->fd);
			x->fd = -1;
			int st = 0;
			waitpid(x->pid, &st, 0);
			if (x->len)
				append(&x->buf, &x->len, &x->cap, "\n", 1), take_lines(x, res);
			if (x->current >= 0) {
				char why[160];
				snprintf(why, sizeof why, "FAIL %s (its process died: %s %d)\n", tests[x->current].name,
					 WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
				append(&res[x->current].out, &res[x->current].len, &res[x->current].cap, why, strlen(why));
				res[x->current].done = 1, res[x->current].passed = 0;
				free(x->buf);
				spawn(x, queue[0]); /* the queue may still hold tests */
			} else {
				--alive;
			}
		}
		/* print what is done, in name order */
		while (next < n && res[sel[next]].done) {
			result *r = &res[sel[next]];
			if (r->out)
				fputs(r->out, stdout);
			fflush(stdout);
			r->passed ? ++*passed : ++*failed;
			free(r->out);
			++next;
		}
	}
	for (; next < n; ++next) /* never reached unless every worker vanished */
		++*failed, printf("FAIL %s (not run)\n", tests[sel[next]].name);
	for (int j = 0; j < jobs; ++j)
		if (w[j].fd >= 0) {
			close(w[j].fd);
			waitpid(w[j].pid, NULL, 0);
		}
	for (int j = 0; j < jobs; ++j)
		free(w[j].buf);
	(void)alive;
	free(w);
	free(res);
	close(queue[0]);
	return 1;
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	const char *env = getenv("FIXSTEP_TEST_JOBS");
	if (env && *env)
		jobs = strtol(env, NULL, 10);
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--quick") == 0) {
			test_quick = 1;
		} else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
			jobs = strtol(argv[++i], NULL, 10);
		} else if (strncmp(argv[i], "-j", 2) == 0 && argv[i][2]) {
			jobs = strtol(argv[i] + 2, NULL, 10);
		} else if (strcmp(argv[i], "--help") == 0) {
			printf("usage: fixstep_tests [--quick] [-j N] [NAME-SUBSTRING]\n"
			       "-j N: N worker processes (default: the cores, or FIXSTEP_TEST_JOBS)\n");
			return 0;
		} else {
			filter = argv[i];
		}
	}
	if (jobs < 1)
		jobs = 1;
	if (jobs > 32)
		jobs = 32;
	/* registration order is link order: sort so the run order is canonical */
	qsort(tests, (size_t)test_count, sizeof *tests, by_name);
	int *sel = malloc(((size_t)test_count + 1) * sizeof *sel), n = 0;
	for (int i = 0; i < test_count; ++i)
		if (!filter || strstr(tests[i].name, filter))
			sel[n++] = i;
	int passed = 0, failed = 0;
	if (jobs > n)
		jobs = n;
	if (jobs <= 1 || !run_parallel(sel, n, (int)jobs, &passed, &failed))
		for (int k = 0; k < n; ++k)
			run_one(sel[k]) ? ++passed : ++failed;
	printf("%d passed, %d failed\n", passed, failed);
	free(sel);
	free(tests);
	return failed ? 1 : 0;
}
