// SPDX-License-Identifier: GPL-2.0
/*
 * episode - time one out-of-memory episode, for make bench-peers: start the
 * workload that causes it, then watch who goes and what it costs.
 *
 *   episode [--timeout S] [--settle MS] [--unprotected]
 *           (--victim|--keep) NAME=CGROUP... -- COMMAND...
 *
 * Runs COMMAND (it starts the workload, e.g. systemd-run, and returns), then
 * watches each CGROUP's cgroup.events until the episode is decided: every
 * --victim cgroup has no process left, or a --keep cgroup has none (the
 * wrong one died). Then --settle milliseconds more (1000) for kills that
 * come after; or until --timeout seconds (120). A CGROUP that does not
 * exist once COMMAND has returned, or that is removed while watched, counts
 * as emptied then (a unit that died before it was watched; systemd removing
 * an emptied unit's cgroup). Time 0 is COMMAND's start. Every
 * 10 ms, and whenever a watched cgroup changes, it reads
 * /proc/pressure/memory and MemAvailable. Prints, one fact a line:
 *
 *   stall MS        the first memory stall (PSI some total rising), or -1
 *   gone NAME MS    a watched cgroup emptied at MS (killed or exited)
 *   alive NAME      a watched cgroup that still has a process at the end
 *   some_us N       PSI memory some total over the episode (microseconds)
 *   full_us N       PSI memory full total over the episode
 *   min_avail_kb N  the lowest MemAvailable seen
 *   end MS          when it stopped watching; timeout 0 or 1
 *
 * It is itself never the victim (oom_score_adj -1000) and never waits on a
 * page fault while it watches (its memory locked): what it measures is the
 * workload and the killers, not its own stall. --unprotected skips both,
 * for a run where that is not allowed (the host tests, in a container).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "tool.h"

#define MAX_WATCH 16

struct watch {
	const char *name;
	char *events;		/* CGROUP/cgroup.events */
	int fd;			/* open on it, or -1 */
	int victim;
	long gone_ms;		/* -1 while populated */
};

static struct watch watches[MAX_WATCH];
static int nwatch;
static struct timespec t0;

static long ms_since_start(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - t0.tv_sec) * 1000 + (ts.tv_nsec - t0.tv_nsec) / 1000000;
}

/* The whole of a small file at fd's start into buf; -1 on error. */
static int read_at_start(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* "some ... total=N\nfull ... total=N": both totals, in microseconds. */
static int read_psi(int fd, long long *some, long long *full)
{
	char buf[256], *s, *f;

	if (read_at_start(fd, buf, sizeof(buf)))
		return -1;
	s = strstr(buf, "total=");
	f = s ? strstr(s + 1, "total=") : NULL;
	if (!f)
		return -1;
	*some = atoll(s + 6);
	*full = atoll(f + 6);
	return 0;
}

static long read_avail_kb(int fd)
{
	char buf[4096], *p;

	if (read_at_start(fd, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "MemAvailable:");
	return p ? atol(p + 13) : -1;
}

static int add_watch(const char *arg, int victim)
{
	const char *eq = strchr(arg, '=');
	struct watch *w = &watches[nwatch];

	if (!eq || eq == arg || !eq[1] || nwatch == MAX_WATCH)
		return -1;
	w->name = strndup(arg, eq - arg);
	if (asprintf(&w->events, "%s/cgroup.events", eq + 1) < 0)
		return -1;
	w->fd = -1;
	w->victim = victim;
	w->gone_ms = -1;
	nwatch++;
	return 0;
}

/* Once COMMAND has run: a cgroup not there is one that emptied already. */
static int open_watches(void)
{
	for (int i = 0; i < nwatch; i++) {
		struct watch *w = &watches[i];

		w->fd = open(w->events, O_RDONLY | O_CLOEXEC);
		if (w->fd >= 0)
			continue;
		if (errno != ENOENT) {
			fprintf(stderr, "episode: %s: %m\n", w->events);
			return -1;
		}
		w->gone_ms = ms_since_start();
	}
	return 0;
}

/*
 * Marks the cgroups that emptied; returns whether the episode is decided:
 * every victim gone, or one that was to be kept.
 */
static int decided(void)
{
	int victims_left = 0, keep_gone = 0;
	char buf[256];

	for (int i = 0; i < nwatch; i++) {
		struct watch *w = &watches[i];

		/*
		 * A read fails once the cgroup is removed (ENODEV): systemd
		 * removes a unit's cgroup as soon as it is empty, sometimes
		 * before "populated 0" is read here.
		 */
		if (w->gone_ms < 0 && (read_at_start(w->fd, buf, sizeof(buf)) ||
				       strstr(buf, "populated 0")))
			w->gone_ms = ms_since_start();
		victims_left += w->victim && w->gone_ms < 0;
		keep_gone |= !w->victim && w->gone_ms >= 0;
	}
	return !victims_left || keep_gone;
}

static int run(char **cmd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		set_oom_score_adj("episode", 0);
		execvp(cmd[0], cmd);
		fprintf(stderr, "episode: %s: %m\n", cmd[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "settle", required_argument, NULL, 's' },
		{ "victim", required_argument, NULL, 'v' },
		{ "keep", required_argument, NULL, 'k' },
		{ "unprotected", no_argument, NULL, 'u' },
		{ 0 }
	};
	long timeout = 120, settle = 1000, stall = -1, min_avail = LONG_MAX, end, done = -1;
	long long some0, full0, some, full;
	int psi, meminfo, c, bad = 0, victims = 0, unprotected = 0;
	struct pollfd pfd[MAX_WATCH];

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			bad |= parse_long(optarg, 1, 3600, &timeout);
			break;
		case 's':
			bad |= parse_long(optarg, 0, 60000, &settle);
			break;
		case 'u':
			unprotected = 1;
			break;
		case 'v':
		case 'k':
			if (add_watch(optarg, c == 'v')) {
				fprintf(stderr, "episode: bad watch '%s'\n", optarg);
				return 2;
			}
			victims += c == 'v';
			break;
		default:
			return 2;
		}
	}
	if (bad || !victims || optind >= argc) {
		fprintf(stderr, "usage: episode [--timeout S] [--settle MS] [--unprotected] "
			"(--victim|--keep) NAME=CGROUP... -- COMMAND...\n");
		return 2;
	}
	psi = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC);
	meminfo = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	if (psi < 0 || meminfo < 0 || read_psi(psi, &some0, &full0)) {
		perror("episode: /proc/pressure/memory, /proc/meminfo");
		return 1;
	}
	if (!unprotected && set_oom_score_adj("episode", -1000))
		return 1;
	if (!unprotected && mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("episode: mlockall");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run(argv + optind)) {
		fprintf(stderr, "episode: %s failed\n", argv[optind]);
		return 1;
	}
	if (open_watches())
		return 1;
	for (int i = 0; i < nwatch; i++)
		pfd[i] = (struct pollfd){ .fd = watches[i].fd, .events = POLLPRI };
	for (;;) {
		long avail = read_avail_kb(meminfo), now;
		int over = decided();

		if (read_psi(psi, &some, &full))
			return 1;
		now = ms_since_start();
		if (stall < 0 && some > some0)
			stall = now;
		if (avail >= 0 && avail < min_avail)
			min_avail = avail;
		if (over && done < 0)
			done = now;
		if ((done >= 0 && now - done >= settle) || now >= timeout * 1000)
			break;
		/* A cgroup.events change wakes it at once; PSI every 10 ms. */
		poll(pfd, nwatch, 10);
	}
	end = ms_since_start();
	printf("stall %ld\n", stall);
	for (int i = 0; i < nwatch; i++) {
		if (watches[i].gone_ms >= 0)
			printf("gone %s %ld\n", watches[i].name, watches[i].gone_ms);
		else
			printf("alive %s\n", watches[i].name);
	}
	printf("some_us %lld\nfull_us %lld\nmin_avail_kb %ld\nend %ld\ntimeout %d\n",
	       some - some0, full - full0, min_avail, end, done < 0);
	return 0;
}
