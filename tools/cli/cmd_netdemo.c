/* fixstep netdemo: four (or --players) peer processes on 127.0.0.1 playing
 * scripted inputs; prints each peer's figures and final hash, checks they
 * agree, and verifies the replay peer 0 recorded with `fixstep verify`. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "fixstep/session.h"
#include "fixstep/replay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *self_exe(char *buf, size_t n, const char *argv0)
{
	ssize_t k = readlink("/proc/self/exe", buf, n - 1);
	if (k > 0) {
		buf[k] = 0;
		return buf;
	}
	return argv0;
}

/* value of key=... in a result line */
static int field(const char *line, const char *key, char *out, size_t n)
{
	char pat[40];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(line, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	size_t k = 0;
	while (p[k] && p[k] != ' ' && p[k] != '\n' && k + 1 < n)
		out[k] = p[k], ++k;
	out[k] = 0;
	return 1;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

typedef struct netdemo_options {
	uint32_t players, ticks, base_port, tick_ms, delay, seed;
	uint32_t perturb_peer, perturb_tick, vanish_peer, vanish_ms; /* tick / ms 0: none */
	const char *loss, *jitter, *dup, *mode, *scene, *dir;        /* passed on to the peers (checked here) */
	bool own_dir;                                                /* a scratch directory made here */
	char dirbuf[256];
} netdemo_options;

/* The peers started: their command's shared pieces, and how each ended. */
typedef struct netdemo_run {
	char peers[512], exe[512], replay[300], key[300];
	pid_t pids[FXS_SESSION_MAX_PEERS];
	int codes[FXS_SESSION_MAX_PEERS]; /* exit status, or 128 + signal */
} netdemo_run;

/* What the peers' result lines say together. */
typedef struct netdemo_summary {
	char hashes[FXS_SESSION_MAX_PEERS][32], snaps[FXS_SESSION_MAX_PEERS][300];
	int all_same, all_ok, record_bad;
	uint64_t first_desync; /* 0: none */
} netdemo_summary;

static int netdemo_usage(void)
{
	printf("usage: fixstep netdemo [--players N] [--loss P] [--jitter MS] [--dup P]\n"
	       "                       [--mode lockstep|rollback] [--scene S] [--ticks T]\n"
	       "                       [--input-delay D] [--tick-ms MS] [--seed S] [--port BASE]\n"
	       "                       [--perturb K:T] [--vanish K:MS] [--dir DIR]\n\n"
	       "Starts N peer processes (`fixstep peer`, default 4) on 127.0.0.1 ports BASE..,\n"
	       "each playing seeded scripted inputs on SCENE (default school) for T ticks\n"
	       "(default 600) at one tick per MS ms (8).\n"
	       "--loss/--jitter/--dup impair every peer's sends (seeded). Prints ticks,\n"
	       "rollbacks, the deepest rollback, re-simulated ticks, bytes sent and the final\n"
	       "hash of every peer; peer 0 records DIR/netdemo.fxr from the confirmed inputs\n"
	       "and `fixstep verify` checks it. --perturb K:T makes peer K move a body by\n"
	       "1 LSB after tick T (a desync: the first diverging body is named); --vanish\n"
	       "K:MS kills peer K after MS ms (the others report it and stop).\n"
	       "The session key is made here (libsodium's randombytes) and given to the peers in\n"
	       "DIR/session.key, as a game's lobby would. Without --dir, DIR is a new directory\n"
	       "in $TMPDIR (or /tmp), removed after a clean run and kept (and named) otherwise.\n");
	return 0;
}

/* --perturb K:T or --vanish K:MS (N >= 1): CLI_GO, or 2 after the error. */
static int netdemo_peer_at(const char *a, const char *v, netdemo_options *o)
{
	uint32_t k, x;
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%s", v);
	char *colon = strchr(tmp, ':');
	if (!colon)
		return cli_usage_error("%s needs K:N", a);
	*colon = 0;
	if (!cli_parse_u32(tmp, &k) || !cli_parse_u32(colon + 1, &x) || x < 1)
		return cli_usage_error("%s needs K:N", a);
	if (a[2] == 'p')
		o->perturb_peer = k, o->perturb_tick = x;
	else
		o->vanish_peer = k, o->vanish_ms = x;
	return CLI_GO;
}

/* Option a with its value v: CLI_GO, or 2 after the error. */
static int netdemo_option(const char *a, const char *v, netdemo_options *o)
{
	if (strcmp(a, "--players") == 0) {
		if (!cli_parse_u32(v, &o->players) || o->players < 2 || o->players > FXS_SESSION_MAX_PEERS)
			return cli_usage_error("--players needs 2..%d", FXS_SESSION_MAX_PEERS);
	} else if (strcmp(a, "--ticks") == 0) {
		if (!cli_parse_u32(v, &o->ticks) || o->ticks < 1)
			return cli_usage_error("--ticks needs >= 1");
	} else if (strcmp(a, "--port") == 0) {
		if (!cli_parse_u32(v, &o->base_port) || o->base_port < 1024 || o->base_port > 65000)
			return cli_usage_error("--port needs 1024..65000");
	} else if (strcmp(a, "--tick-ms") == 0) {
		if (!cli_parse_u32(v, &o->tick_ms) || o->tick_ms < 1)
			return cli_usage_error("--tick-ms needs >= 1");
	} else if (strcmp(a, "--input-delay") == 0) {
		if (!cli_parse_u32(v, &o->delay))
			return cli_usage_error("--input-delay needs a number");
	} else if (strcmp(a, "--seed") == 0) {
		if (!cli_parse_u32(v, &o->seed))
			return cli_usage_error("--seed needs a number");
	} else if (strcmp(a, "--perturb") == 0 || strcmp(a, "--vanish") == 0) {
		return netdemo_peer_at(a, v, o);
	} else if (strcmp(a, "--loss") == 0 || strcmp(a, "--dup") == 0) {
		double p;
		if (!cli_parse_prob(v, &p))
			return cli_usage_error("%s needs a probability 0..1", a);
		*(a[2] == 'l' ? &o->loss : &o->dup) = v;
	} else if (strcmp(a, "--jitter") == 0) {
		uint32_t ms;
		if (!cli_parse_u32(v, &ms) || ms > 10000)
			return cli_usage_error("--jitter needs 0..10000 ms");
		o->jitter = v;
	} else if (strcmp(a, "--dir") == 0 && !v[0]) {
		return cli_usage_error("--dir needs a directory");
	} else {
		/* the rest are passed on to the peers, which check them */
		static const char *const names[] = { "--mode", "--scene", "--dir" };
		const char **dst[] = { &o->mode, &o->scene, &o->dir };
		for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
			if (strcmp(a, names[k]) == 0) {
				*dst[k] = v;
				return CLI_GO;
			}
		return cli_usage_error("netdemo: unknown argument '%s'", a);
	}
	return CLI_GO;
}

static int netdemo_parse(int argc, char **argv, netdemo_options *o)
{
	memset(o, 0, sizeof *o);
	o->players = 4, o->ticks = 600, o->tick_ms = 8, o->seed = 1;
	o->loss = o->jitter = o->dup = "0", o->mode = "lockstep", o->scene = "school";
	for (int i = 1; i < argc; i += 2) { /* every option has a value */
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0)
			return netdemo_usage();
		if (!v)
			return cli_usage_error("%s needs a value", a);
		int rc = netdemo_option(a, v, o);
		if (rc != CLI_GO)
			return rc;
	}
	if (strcmp(o->mode, "lockstep") != 0 && strcmp(o->mode, "rollback") != 0)
		return cli_usage_error("--mode is lockstep or rollback");
	if (!cli_scene(o->scene))
		return 2;
	if ((o->perturb_tick && o->perturb_peer >= o->players) || (o->vanish_ms && o->vanish_peer >= o->players))
		return cli_usage_error("--perturb / --vanish name a peer below --players");
	return CLI_GO;
}

/* Starts peer k, its stdout and stderr in DIR/peerK.log: 0, or 1 when it
 * cannot fork. */
static int netdemo_spawn(const netdemo_options *o, netdemo_run *nr, uint32_t k)
{
	char sport[16], sk[16], sticks[16], sdelay[16], sms[16], sseed[16], spert[16], logp[300];
	snprintf(sport, sizeof sport, "%u", o->base_port + k);
	snprintf(sk, sizeof sk, "%u", k);
	snprintf(sticks, sizeof sticks, "%u", o->ticks);
	snprintf(sdelay, sizeof sdelay, "%u", o->delay);
	snprintf(sms, sizeof sms, "%u", o->tick_ms);
	snprintf(sseed, sizeof sseed, "%u", o->seed);
	snprintf(spert, sizeof spert, "%u", o->perturb_tick);
	snprintf(logp, sizeof logp, "%s/peer%u.log", o->dir, k);
	const char *av[64];
	int n = 0;
	av[n++] = nr->exe, av[n++] = "peer", av[n++] = "--port", av[n++] = sport, av[n++] = "--peers", av[n++] = nr->peers;
	av[n++] = "--player", av[n++] = sk, av[n++] = "--scene", av[n++] = o->scene, av[n++] = "--ticks";
	av[n++] = sticks, av[n++] = "--mode", av[n++] = o->mode, av[n++] = "--input-delay", av[n++] = sdelay;
	av[n++] = "--tick-ms", av[n++] = sms, av[n++] = "--seed", av[n++] = sseed, av[n++] = "--loss";
	av[n++] = o->loss, av[n++] = "--jitter", av[n++] = o->jitter, av[n++] = "--dup", av[n++] = o->dup;
	av[n++] = "--desync-dir", av[n++] = o->dir, av[n++] = "--key-file", av[n++] = nr->key;
	if (k == 0)
		av[n++] = "--record", av[n++] = nr->replay;
	if (o->perturb_tick && k == o->perturb_peer)
		av[n++] = "--perturb-at", av[n++] = spert;
	av[n] = NULL;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 1), dup2(fd, 2), close(fd);
		execv(nr->exe, (char *const *)av);
		_exit(127);
	}
	nr->pids[k] = pid;
	return 0;
}

/* DIR (a new scratch directory when not given) and the session key in it,
 * which proves it writable: 0, or 2 after the reason. */
static int netdemo_prepare_dir(netdemo_options *o, netdemo_run *nr)
{
	if (!o->dir) {
		const char *t = getenv("TMPDIR");
		snprintf(o->dirbuf, sizeof o->dirbuf, "%s/fixstep-netdemo-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(o->dirbuf))
			return cli_usage_error("netdemo: cannot make a directory %s: %s", o->dirbuf, strerror(errno));
		o->dir = o->dirbuf, o->own_dir = true;
	} else if (mkdir(o->dir, 0755) != 0 && errno != EEXIST) {
		return cli_usage_error("netdemo: cannot use --dir %s: %s", o->dir, strerror(errno));
	}
	if (strlen(o->dir) > 200)
		return cli_usage_error("netdemo: --dir %s: too long", o->dir);
	uint8_t key[FXS_SESSION_KEY_BYTES];
	randombytes_buf(key, sizeof key);
	snprintf(nr->key, sizeof nr->key, "%s/session.key", o->dir);
	int fd = open(nr->key, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool ok = fd >= 0 && write(fd, key, sizeof key) == (ssize_t)sizeof key;
	int e = errno;
	if (fd >= 0 && close(fd) != 0 && ok)
		ok = false, e = errno;
	sodium_memzero(key, sizeof key);
	if (!ok)
		return cli_usage_error("netdemo: cannot use --dir %s: %s", o->dir, strerror(e));
	return 0;
}

/* Removes the scratch directory made here and what is in it. */
static void netdemo_remove_dir(const netdemo_options *o)
{
	DIR *d = opendir(o->dir);
	if (!d)
		return;
	struct dirent *e;
	char path[600];
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(path, sizeof path, "%s/%s", o->dir, e->d_name);
			remove(path);
		}
	closedir(d);
	rmdir(o->dir);
}

/* Starts every peer (BASE chosen from our pid when not given), kills the
 * --vanish one on time and waits for all: 0, or 1 when a fork fails. */
static int netdemo_run_peers(netdemo_options *o, netdemo_run *nr, const char *argv0)
{
	if (!o->base_port)
		o->base_port = 20000 + (uint32_t)(getpid() % 4000) * 8;
	char tmp[64];
	nr->peers[0] = 0;
	for (uint32_t k = 0; k < o->players; ++k) {
		snprintf(tmp, sizeof tmp, "%s127.0.0.1:%u", k ? "," : "", o->base_port + k);
		strcat(nr->peers, tmp);
	}
	self_exe(nr->exe, sizeof nr->exe, argv0);
	snprintf(nr->replay, sizeof nr->replay, "%s/netdemo.fxr", o->dir);
	printf("netdemo: %u peers on 127.0.0.1:%u.., %s, scene %s, %u ticks at %u ms, loss %s jitter %s ms dup %s\n",
	       o->players, o->base_port, o->mode, o->scene, o->ticks, o->tick_ms, o->loss, o->jitter, o->dup);
	fflush(stdout);
	for (uint32_t k = 0; k < o->players; ++k)
		if (netdemo_spawn(o, nr, k))
			return 1;
	if (o->vanish_ms) {
		struct timespec ts = { o->vanish_ms / 1000, (long)(o->vanish_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		kill(nr->pids[o->vanish_peer], SIGKILL);
		printf("netdemo: killed peer %u after %u ms\n", o->vanish_peer, o->vanish_ms);
	}
	for (uint32_t k = 0; k < o->players; ++k) {
		int st = 0;
		while (waitpid(nr->pids[k], &st, 0) < 0 && errno == EINTR)
			;
		nr->codes[k] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	return 0;
}

/* Peer k's row of the table from its log's result line, and the lines it
 * printed before it (vanished / desync reports), into sum. */
static void netdemo_peer_row(const netdemo_options *o, const netdemo_run *nr, uint32_t k, netdemo_summary *sum)
{
	char logp[300], *line = NULL;
	snprintf(logp, sizeof logp, "%s/peer%u.log", o->dir, k);
	size_t len;
	char *text = read_file(logp, &len);
	sum->hashes[k][0] = sum->snaps[k][0] = 0;
	if (text)
		line = strstr(text, "result peer=");
	if (!line) {
		printf("%-5u %-8s (no result: exit %d; see %s)\n", k, nr->codes[k] == 128 + SIGKILL ? "killed" : "failed",
		       nr->codes[k], logp);
		sum->all_ok = 0;
		free(text);
		return;
	}
	static const char *const keys[9] = { "status", "ticks", "confirmed", "rollbacks", "deepest",
					     "resimulated", "bytes", "dropped", "desync_tick" };
	char f[9][32], rec[8] = "";
	for (int i = 0; i < 9; ++i)
		field(line, keys[i], f[i], sizeof f[i]);
	field(line, "hash", sum->hashes[k], sizeof sum->hashes[k]);
	field(line, "snap", sum->snaps[k], sizeof sum->snaps[k]);
	field(line, "record", rec, sizeof rec);
	if (strcmp(rec, "0") == 0)
		sum->record_bad = 1;
	printf("%-5u %-8s %6s %9s %9s %7s %11s %9s %8s %s\n", k, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
	       sum->hashes[k]);
	for (char *p = text; p < line;) {
		char *e = strchr(p, '\n');
		if (!e)
			break;
		printf("      %.*s\n", (int)(e - p), p);
		p = e + 1;
	}
	if (strcmp(f[0], "ok") != 0)
		sum->all_ok = 0;
	uint64_t t = strtoull(f[8], NULL, 10);
	if (t && (!sum->first_desync || t < sum->first_desync))
		sum->first_desync = t;
	if (strcmp(sum->hashes[k], sum->hashes[0]) != 0)
		sum->all_same = 0;
	free(text);
}

/* The first diverging body and field between two snapshots of the same
 * tick: "body S field F (expected E, got G)". false when they do not
 * differ or cannot be read. */
static bool compare_snapshots(const void *a, size_t alen, const void *b, size_t blen, char *out, size_t n)
{
	fxs_state_diff d;
	bool differ = fxs_snapshot_first_difference(a, alen, b, blen, &d);
	if (differ)
		fxs_state_diff_format(&d, out, n);
	return differ;
}

/* The first two peers whose snapshots of the desync tick differ: the first
 * diverging body between them. */
static void netdemo_report_desync(const netdemo_options *o, const netdemo_summary *sum)
{
	printf("desync at tick %" PRIu64 "\n", sum->first_desync);
	for (uint32_t a = 0; a < o->players; ++a)
		for (uint32_t b = a + 1; b < o->players; ++b) {
			const char *pa = sum->snaps[a], *pb = sum->snaps[b];
			if (!pa[0] || !pb[0] || strcmp(pa, "-") == 0 || strcmp(pb, "-") == 0)
				continue;
			size_t la, lb;
			char *sa = read_file(pa, &la), *sb = read_file(pb, &lb);
			char msg[256];
			int differ = sa && sb && compare_snapshots(sa, la, sb, lb, msg, sizeof msg);
			free(sa);
			free(sb);
			if (differ) {
				printf("first diverging between peer %u and peer %u at tick %" PRIu64 ": %s\n", a, b,
				       sum->first_desync, msg);
				return;
			}
		}
}

/* `fixstep verify` on the replay peer 0 recorded: 0 when it accepts it and
 * the peer's own re-simulation ended on the session's hash, else 1. */
static int netdemo_verify_replay(const netdemo_run *nr, const netdemo_summary *sum)
{
	printf("replay %s (the confirmed inputs): ", nr->replay);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1), close(fd);
		execl(nr->exe, nr->exe, "verify", nr->replay, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && !sum->record_bad;
	if (sum->record_bad)
		printf("(the offline re-simulation of the confirmed inputs does NOT end on the session's hash) ");
	printf("fixstep verify %s\n", ok ? "accepts it" : "REJECTS it");
	return ok ? 0 : 1;
}

/* The table of every peer, then the verdict: 0 all agree and the replay
 * verifies, 1 they or the replay do not, 3 a peer did not finish, 4 desync. */
static int netdemo_report(const netdemo_options *o, const netdemo_run *nr)
{
	printf("%-5s %-8s %6s %9s %9s %7s %11s %9s %8s %s\n", "peer", "status", "ticks", "confirmed", "rollbacks",
	       "deepest", "resimulated", "bytes", "dropped", "final hash");
	netdemo_summary sum = { .all_same = 1, .all_ok = 1 };
	for (uint32_t k = 0; k < o->players; ++k)
		netdemo_peer_row(o, nr, k, &sum);
	int rc;
	if (sum.first_desync) {
		netdemo_report_desync(o, &sum);
		rc = 4;
	} else if (!sum.all_ok) {
		printf("netdemo: not every peer finished (see the logs in %s)\n", o->dir);
		rc = 3;
	} else {
		printf("final hashes %s\n", sum.all_same ? "agree" : "DIFFER");
		if (!sum.all_same)
			return 1;
		rc = netdemo_verify_replay(nr, &sum);
	}
	return rc;
}

int cmd_netdemo(int argc, char **argv)
{
	netdemo_options o;
	netdemo_run nr;
	int rc = netdemo_parse(argc, argv, &o);
	if (rc != CLI_GO)
		return rc;
	if (sodium_init() < 0) {
		fprintf(stderr, "fixstep: netdemo: libsodium cannot start\n");
		return 1;
	}
	if ((rc = netdemo_prepare_dir(&o, &nr)) != 0 || (rc = netdemo_run_peers(&o, &nr, argv[0])) != 0) {
		if (o.own_dir)
			netdemo_remove_dir(&o);
		return rc;
	}
	rc = netdemo_report(&o, &nr);
	if (o.own_dir && rc == 0)
		netdemo_remove_dir(&o);
	else
		printf("logs in %s\n", o.dir);
	return rc;
}
