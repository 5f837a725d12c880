/* libFuzzer target: a session attacked by one of its own peers. The input
 * is an attack script (tests/session_insider.h): a four-peer session over
 * the simulated network with a late joiner, pauses past absent_ms and
 * restarts, and packets sealed with the session key (so they pass the MAC)
 * whose bodies are the input's bytes, real bodies mutated or cut, or roster
 * messages of the right shape. Every body of every type reaches its
 * parser; none may crash, read or write out of bounds, leak or hang. The
 * tests run the same harness on seeded scripts (session_insider_*). */
#include "session_insider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	insider_run(data, size, NULL);
	return 0;
}
