/* fixstep netdemo: four (or --players) peer processes on 127.0.0.1 playing
 * scripted inputs; prints each peer's figures and final hash, checks they
 * agree, and verifies the replay peer 0 recorded with `fixstep verify`. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/commands.h"
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
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

int cmd_netdemo(int argc, char **argv)
{
	uint32_t players = 4, ticks = 600, base_port = 0, tick_ms = 8, delay = 0, seed = 1;
	uint32_t perturb_peer = 0, perturb_tick = 0, vanish_peer = 0, vanish_ms = 0;
	const char *loss = "0", *jitter = "0", *dup = "0", *mode = "lockstep", *scene = "school", *dir = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0) {
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
			       "K:MS kills peer K after MS ms (the others report it and stop).\n");
			return 0;
		}
		if (!v)
			return cli_usage_error("%s needs a value", a);
		if (strcmp(a, "--players") == 0) {
			if (!cli_parse_u32(v, &players) || players < 2 || players > FXS_SESSION_MAX_PEERS)
				return cli_usage_error("--players needs 2..%d", FXS_SESSION_MAX_PEERS);
		} else if (strcmp(a, "--ticks") == 0) {
			if (!cli_parse_u32(v, &ticks) || ticks < 1)
				return cli_usage_error("--ticks needs >= 1");
		} else if (strcmp(a, "--port") == 0) {
			if (!cli_parse_u32(v, &base_port) || base_port < 1024 || base_port > 65000)
				return cli_usage_error("--port needs 1024..65000");
		} else if (strcmp(a, "--tick-ms") == 0) {
			if (!cli_parse_u32(v, &tick_ms) || tick_ms < 1)
				return cli_usage_error("--tick-ms needs >= 1");
		} else if (strcmp(a, "--input-delay") == 0) {
			if (!cli_parse_u32(v, &delay))
				return cli_usage_error("--input-delay needs a number");
		} else if (strcmp(a, "--seed") == 0) {
			if (!cli_parse_u32(v, &seed))
				return cli_usage_error("--seed needs a number");
		} else if (strcmp(a, "--perturb") == 0 || strcmp(a, "--vanish") == 0) {
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
				perturb_peer = k, perturb_tick = x;
			else
				vanish_peer = k, vanish_ms = x;
		} else if (strcmp(a, "--loss") == 0) {
			loss = v;
		} else if (strcmp(a, "--jitter") == 0) {
			jitter = v;
		} else if (strcmp(a, "--dup") == 0) {
			dup = v;
		} else if (strcmp(a, "--mode") == 0) {
			mode = v;
		} else if (strcmp(a, "--scene") == 0) {
			scene = v;
		} else if (strcmp(a, "--dir") == 0) {
			dir = v;
		} else {
			return cli_usage_error("netdemo: unknown argument '%s'", a);
		}
		++i;
	}
	if (strcmp(mode, "lockstep") != 0 && strcmp(mode, "rollback") != 0)
		return cli_usage_error("--mode is lockstep or rollback");
	if (!fxs_scene_find(scene))
		return cli_usage_error("unknown scene '%s' (see fixstep scenes)", scene);
	if ((perturb_tick && perturb_peer >= players) || (vanish_ms && vanish_peer >= players))
		return cli_usage_error("--perturb / --vanish name a peer below --players");
	char dirbuf[256];
	if (!dir) {
		snprintf(dirbuf, sizeof dirbuf, "/tmp/fixstep-netdemo-%ld", (long)getpid());
		dir = dirbuf;
	}
	mkdir(dir, 0755);
	if (!base_port)
		base_port = 20000 + (uint32_t)(getpid() % 4000) * 8;
	char peers[512] = "", exe[512], tmp[64];
	for (uint32_t k = 0; k < players; ++k) {
		snprintf(tmp, sizeof tmp, "%s127.0.0.1:%u", k ? "," : "", base_port + k);
		strcat(peers, tmp);
	}
	self_exe(exe, sizeof exe, argv[0]);
	char replay[300];
	snprintf(replay, sizeof replay, "%s/netdemo.fxr", dir);
	printf("netdemo: %u peers on 127.0.0.1:%u.., %s, scene %s, %u ticks at %u ms, loss %s jitter %s ms dup %s\n",
	       players, base_port, mode, scene, ticks, tick_ms, loss, jitter, dup);
	fflush(stdout);
	pid_t pids[FXS_SESSION_MAX_PEERS];
	for (uint32_t k = 0; k < players; ++k) {
		char sport[16], sk[16], sticks[16], sdelay[16], sms[16], sseed[16], spert[16], logp[300];
		snprintf(sport, sizeof sport, "%u", base_port + k);
		snprintf(sk, sizeof sk, "%u", k);
		snprintf(sticks, sizeof sticks, "%u", ticks);
		snprintf(sdelay, sizeof sdelay, "%u", delay);
		snprintf(sms, sizeof sms, "%u", tick_ms);
		snprintf(sseed, sizeof sseed, "%u", seed);
		snprintf(spert, sizeof spert, "%u", perturb_tick);
		snprintf(logp, sizeof logp, "%s/peer%u.log", dir, k);
		const char *av[64];
		int n = 0;
		av[n++] = exe, av[n++] = "peer", av[n++] = "--port", av[n++] = sport, av[n++] = "--peers", av[n++] = peers;
		av[n++] = "--player", av[n++] = sk, av[n++] = "--scene", av[n++] = scene, av[n++] = "--ticks";
		av[n++] = sticks, av[n++] = "--mode", av[n++] = mode, av[n++] = "--input-delay", av[n++] = sdelay;
		av[n++] = "--tick-ms", av[n++] = sms, av[n++] = "--seed", av[n++] = sseed, av[n++] = "--loss";
		av[n++] = loss, av[n++] = "--jitter", av[n++] = jitter, av[n++] = "--dup", av[n++] = dup;
		av[n++] = "--desync-dir", av[n++] = dir;
		if (k == 0)
			av[n++] = "--record", av[n++] = replay;
		if (perturb_tick && k == perturb_peer)
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
			execv(exe, (char *const *)av);
			_exit(127);
		}
		pids[k] = pid;
	}
	if (vanish_ms) {
		struct timespec ts = { vanish_ms / 1000, (long)(vanish_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		kill(pids[vanish_peer], SIGKILL);
		printf("netdemo: killed peer %u after %u ms\n", vanish_peer, vanish_ms);
	}
	int codes[FXS_SESSION_MAX_PEERS];
	for (uint32_t k = 0; k < players; ++k) {
		int st = 0;
		while (waitpid(pids[k], &st, 0) < 0 && errno == EINTR)
			;
		codes[k] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	}
	printf("%-5s %-8s %6s %9s %9s %7s %11s %9s %8s %s\n", "peer", "status", "ticks", "confirmed", "rollbacks",
	       "deepest", "resimulated", "bytes", "dropped", "final hash");
	char hashes[FXS_SESSION_MAX_PEERS][32], snaps[FXS_SESSION_MAX_PEERS][300];
	int all_same = 1, all_ok = 1, record_bad = 0;
	uint64_t first_desync = 0;
	for (uint32_t k = 0; k < players; ++k) {
		char logp[300], *line = NULL;
		snprintf(logp, sizeof logp, "%s/peer%u.log", dir, k);
		size_t len;
		char *text = read_file(logp, &len);
		hashes[k][0] = snaps[k][0] = 0;
		if (text)
			line = strstr(text, "result peer=");
		if (!line) {
			printf("%-5u %-8s (no result: exit %d; see %s)\n", k, codes[k] == 128 + SIGKILL ? "killed" : "failed",
			       codes[k], logp);
			all_ok = 0;
			free(text);
			continue;
		}
		char stt[32], tk[32], cf[32], rb[32], dp[32], rs[32], by[32], dr[32], dt[32];
		field(line, "status", stt, sizeof stt);
		field(line, "ticks", tk, sizeof tk);
		field(line, "confirmed", cf, sizeof cf);
		field(line, "rollbacks", rb, sizeof rb);
		field(line, "deepest", dp, sizeof dp);
		field(line, "resimulated", rs, sizeof rs);
		field(line, "bytes", by, sizeof by);
		field(line, "dropped", dr, sizeof dr);
		field(line, "hash", hashes[k], sizeof hashes[k]);
		field(line, "snap", snaps[k], sizeof snaps[k]);
		field(line, "desync_tick", dt, sizeof dt);
		char rec[8] = "";
		field(line, "record", rec, sizeof rec);
		if (strcmp(rec, "0") == 0)
			record_bad = 1;
		printf("%-5u %-8s %6s %9s %9s %7s %11s %9s %8s %s\n", k, stt, tk, cf, rb, dp, rs, by, dr, hashes[k]);
		/* the peer's own lines (vanished / desync reports) */
		for (char *p = text; p < line;) {
			char *e = strchr(p, '\n');
			if (!e)
				break;
			printf("      %.*s\n", (int)(e - p), p);
			p = e + 1;
		}
		if (strcmp(stt, "ok") != 0)
			all_ok = 0;
		uint64_t t = strtoull(dt, NULL, 10);
		if (t && (!first_desync || t < first_desync))
			first_desync = t;
		if (strcmp(hashes[k], hashes[0]) != 0)
			all_same = 0;
		free(text);
	}
	int rc = 0;
	if (first_desync) {
		printf("desync at tick %" PRIu64 "\n", first_desync);
		/* compare the snapshots of two peers whose states differ */
		for (uint32_t a = 0; a < players; ++a)
			for (uint32_t b = a + 1; b < players; ++b) {
				if (!snaps[a][0] || !snaps[b][0] || strcmp(snaps[a], "-") == 0 || strcmp(snaps[b], "-") == 0)
					continue;
				size_t la, lb;
				char *sa = read_file(snaps[a], &la), *sb = read_file(snaps[b], &lb);
				char msg[256];
				int differ = sa && sb && fxs_session_compare_snapshots(sa, la, sb, lb, msg, sizeof msg);
				free(sa);
				free(sb);
				if (differ) {
					printf("first diverging between peer %u and peer %u at tick %" PRIu64 ": %s\n", a, b,
					       first_desync, msg);
					a = b = players;
				}
			}
		rc = 4;
	} else if (!all_ok) {
		printf("netdemo: not every peer finished (see the logs in %s)\n", dir);
		rc = 3;
	} else {
		printf("final hashes %s\n", all_same ? "agree" : "DIFFER");
		if (!all_same)
			return 1;
		printf("replay %s (the confirmed inputs): ", replay);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1), close(fd);
			execl(exe, exe, "verify", replay, (char *)NULL);
			_exit(127);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && !record_bad;
		if (record_bad)
			printf("(the offline re-simulation of the confirmed inputs does NOT end on the session's hash) ");
		printf("fixstep verify %s\n", ok ? "accepts it" : "REJECTS it");
		rc = ok ? 0 : 1;
	}
	printf("logs in %s\n", dir);
	return rc;
}
