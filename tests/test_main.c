#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	const char *filter = NULL;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--quick") == 0)
			test_quick = 1;
		else if (strcmp(argv[i], "--help") == 0) {
			printf("usage: fixstep_tests [--quick] [NAME-SUBSTRING]\n");
			return 0;
		} else
			filter = argv[i];
	}
	/* registration order is link order: sort so the run order is canonical */
	qsort(tests, (size_t)test_count, sizeof *tests, by_name);
	int passed = 0, failed = 0;
	for (int i = 0; i < test_count; ++i) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		test_failed = 0;
		clock_t t0 = clock();
		tests[i].fn();
		double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
		printf("%s %s (%.0f ms)\n", test_failed ? "FAIL" : "ok  ", tests[i].name, ms);
		fflush(stdout);
		if (test_failed)
			++failed;
		else
			++passed;
	}
	printf("%d passed, %d failed\n", passed, failed);
	free(tests);
	return failed ? 1 : 0;
}
