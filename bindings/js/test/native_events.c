/* The native side of the package's event tests (game.test.mjs): restores a
 * world from a snapshot the JavaScript API saved, steps it, and prints
 * every step's events in raw Q16.16, one line each, then the state hash.
 * The test prints the same lines from the JavaScript API and compares: a
 * world built in JavaScript has the same events natively, at the same steps.
 *
 *   native_events SNAPSHOT STEPS */
#include <fixstep/fixstep.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void id(fxs_body_id b) { printf(" %" PRIu32 ":%" PRIu32, b.index1, b.generation); }
static void v3(fxg_vec3 v) { printf(" %" PRId32 " %" PRId32 " %" PRId32, v.x, v.y, v.z); }

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: native_events SNAPSHOT STEPS\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return perror(argv[1]), 2;
	static unsigned char buf[1 << 24];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	fxs_result r;
	fxs_world *w = fxs_world_create_from_snapshot(buf, n, &r);
	if (!w)
		return fprintf(stderr, "restore: %s\n", fxs_result_string(r)), 1;
	long steps = strtol(argv[2], NULL, 10);
	for (long s = 1; s <= steps; ++s) {
		if (fxs_world_step(w) != FXS_OK)
			return fprintf(stderr, "step %ld failed\n", s), 1;
		fxs_contact_events c = fxs_world_get_contact_events(w);
		fxs_sensor_events e = fxs_world_get_sensor_events(w);
		for (uint32_t k = 0; k < c.begin_count; ++k) {
			const fxs_contact_begin_event *b = &c.begin_events[k];
			printf("%ld begin", s), id(b->body_a), id(b->body_b);
			printf(" %" PRIu32 " %" PRIu32, b->child_a, b->child_b), v3(b->normal), v3(b->point);
			printf(" %" PRId32 " %" PRId32 "\n", b->separation, b->point_count);
		}
		for (uint32_t k = 0; k < c.end_count; ++k) {
			const fxs_contact_end_event *x = &c.end_events[k];
			printf("%ld end", s), id(x->body_a), id(x->body_b);
			printf(" %" PRIu32 " %" PRIu32 "\n", x->child_a, x->child_b);
		}
		for (uint32_t k = 0; k < c.hit_count; ++k) {
			const fxs_contact_hit_event *h = &c.hit_events[k];
			printf("%ld hit", s), id(h->body_a), id(h->body_b);
			printf(" %" PRIu32 " %" PRIu32, h->child_a, h->child_b), v3(h->point), v3(h->normal);
			printf(" %" PRId32 "\n", h->approach_speed);
		}
		for (uint32_t k = 0; k < e.begin_count; ++k)
			printf("%ld sensor begin", s), id(e.begin_events[k].sensor), id(e.begin_events[k].visitor), printf("\n");
		for (uint32_t k = 0; k < e.end_count; ++k)
			printf("%ld sensor end", s), id(e.end_events[k].sensor), id(e.end_events[k].visitor), printf("\n");
	}
	printf("hash %016" PRIx64 "\n", fxs_world_hash(w));
	fxs_world_destroy(w);
	return 0;
}
