/* Late join and reconnect (private; session.c calls these hooks).
 *
 * The rule for an absent peer, the same on every peer: peer j's host is the
 * lowest player peer other than j that is in (not declared absent and not
 * back yet); the one that declared j absent stays its host until it is
 * declared absent itself, and then the lowest player peer in takes its
 * place for good. When the host has heard nothing from j for absent_ms, it
 * declares j absent (a new epoch), j present or back (a j that goes before
 * its return is done); a j back that asks to join again restarted, and is
 * declared absent too. A joiner silent for absent_ms before it is ready is
 * forgotten (it may have restarted and asked another peer) and told its
 * absence again, which tells it who its host is. Every peer then freezes j
 * (takes no more of j's inputs) and reports to every other peer the tick up to which it
 * held all of j's inputs; once the report of every player peer in is here,
 * the host takes M, the highest, and says so in its reports (and in
 * JOINED); every peer fills j's inputs up to M from the reports (never
 * past M: a peer whose report M does not count may hold more), and from
 * M + 1 on j's inputs are neutral (zero bytes), which the host makes and
 * sends as j's (PROXY), so nobody ever has two versions of one of j's
 * inputs. The checksums of a peer whose report M did not count are not
 * compared past M until it is back. A joiner that loaded the state of a
 * host declared absent since says so in its reports (its state's tick), and
 * the host that took that one's place sends it its proxies and return tick
 * (the old host's, when that one told it to the others; when it told only
 * the joiner, the joiner's unless a proxy reaches past it, else the joiner
 * is declared absent again and joins anew). A peer whose report shows it
 * missed a return (it restarted since) is sent that JOINED again. A joining j (late, or restarted) asks its
 * host (JOIN_REQ); the host sends it, over the reliable transfer, its saved
 * state of a confirmed tick T and every player's confirmed inputs T+1..C;
 * j loads it, simulates to C, takes the proxied inputs and the others'
 * from C + 1 as they come, and says READY; the host then picks the return
 * tick R (past every proxy it made and past any tick the old j can have
 * sent) and tells everyone (JOINED): j's inputs are proxies below R and j's
 * own from R.
 *
 * Stalls: while j is absent, the others wait for j's inputs only until the
 * absence is declared and the reports are in (absent_ms plus about two
 * round trips); while j loads and catches up they run on proxies; at R
 * they wait for j's input of R (about one round trip after READY).
 *
 * What j takes on its host's word: nothing it cannot check. The blob's
 * state must be a world whose step is T (for a world's state), and j asks
 * every other player peer (VOUCH_REQ) for its confirmed checksums of T and
 * C: each must equal the state's (loaded) and the one the blob's inputs
 * T+1..C lead to (simulated), and no peer may have simulated fewer than
 * C - 1 - input_delay ticks (the host cannot have confirmed C before). Any
 * contradiction refuses the blob with its reason (join status, event
 * JOIN_REFUSED) and j asks again; a peer that has not answered within
 * VOUCH_WAIT_MS (2 s) is not waited for (it may be gone). With pair keys
 * the host cannot speak for the vouchers. Past C, every input comes from
 * its owner's own packets (or, for an absent peer, the host's proxies). */
#ifndef FXS_SESSION_JOIN_H
#define FXS_SESSION_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session_impl.h"

#define FXS_PKT_JOIN_XFER 3u /* the join state's transfer (xfer.h) */
#define FXS_PKT_ROSTER 4u    /* absence, reports, proxies, join requests */

typedef struct fxs_join fxs_join;

fxs_join *fxs_join_create(fxs_session *s);
void fxs_join_destroy(fxs_join *j);
/* Once per advance call, before simulating: absences, proxies, loading. */
void fxs_join_frame(fxs_session *s, uint64_t now_ms);
/* An authentic packet from q was accepted. */
void fxs_join_heard(fxs_session *s, uint32_t q);
/* Take peer q's input / checksum of tick t from a data packet? */
bool fxs_join_take_input(const fxs_session *s, uint32_t q, uint64_t t);
bool fxs_join_take_hash(const fxs_session *s, uint32_t q, uint64_t t);
/* Our checksums sent to peer q up to here only (an absent q: the ticks on
 * its own inputs; UINT64_MAX when present). */
uint64_t fxs_join_hash_limit(const fxs_session *s, uint32_t q);
/* Checksums of peer q up to here are not compared (before a join's state). */
uint64_t fxs_join_compare_from(const fxs_session *s, uint32_t q);
/* May the session simulate / take local inputs now? */
bool fxs_join_can_simulate(const fxs_session *s);
bool fxs_join_can_take_local(const fxs_session *s);
/* A packet of q's that failed the sequence check: may it pass anyway (a
 * restarted peer's request to join)? Resets q's window when so. */
bool fxs_join_seq_exempt(fxs_session *s, uint32_t q, uint32_t type, const uint8_t *body, size_t len, uint32_t seq);
/* An authentic body of type 3 or 4 from q. */
fxs_drop fxs_join_receive(fxs_session *s, uint32_t q, uint32_t type, const uint8_t *body, size_t len,
			  uint64_t now_ms);
/* The next body for `to`: its length and type, or 0. */
size_t fxs_join_body(fxs_session *s, uint32_t to, uint8_t *type, uint8_t *out, size_t cap, uint64_t now_ms);
/* Peer q is absent now (declared, not back): not waited for. */
bool fxs_join_absent(const fxs_session *s, uint32_t q);
/* Nothing of a join in progress here. */
bool fxs_join_idle(const fxs_session *s);
void fxs_join_status(const fxs_session *s, fxs_session_join_status *st);
/* Tests: the host passes every join blob it makes through fn (a cheating
 * host); *blob is malloc'd, fn may replace it (NULL: nothing sent). */
typedef void (*fxs_join_tamper_fn)(void *ctx, uint8_t **blob, size_t *len);
void fxs_join_set_tamper(fxs_session *s, fxs_join_tamper_fn fn, void *ctx);

#endif
