// SPDX-License-Identifier: GPL-2.0
/*
 * grower - memory that grows at a set rate, for make bench-peers: the
 * runaway, the fork bomb of allocators and the slow leak.
 *
 *   grower [--forks N] [--fast MB] [--rate MB_PER_S] [--ready FILE]
 *          [--go FILE] [MB]
 *
 * Touches --fast MB as fast as it can, creates FILE, waits for --go FILE to
 * exist (looked for every 10 ms: the workload is in place, its cgroup made,
 * before the episode starts), then goes on at RATE
 * mebibytes a second (0, the default: as fast as it can) until it holds MB
 * (0, the default: no end), and sleeps until killed. With --forks N it first
 * forks N - 1 children that do the same (each with its own FILE.N): a fork
 * bomb of allocators. The rate is kept against the clock, not by sleeping a
 * fixed time per mebibyte, so that a slow spell (reclaim, a busy host) is
 * caught up on rather than lost. oom_score_adj is 0 (tests/tools/tool.h).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void grow_one(void)
{
	if (take_mib()) {
		perror("grower: mmap");
		exit(1);
	}
}

/* Written whole, then renamed: a reader never sees half of it. */
static void say_ready(const char *ready)
{
	char tmp[PATH_MAX];
	int fd;

	if (!ready)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", ready) >= (int)sizeof(tmp)) {
		fprintf(stderr, "grower: ready file name too long\n");
		exit(2);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || close(fd) || rename(tmp, ready)) {
		perror("grower: ready file");
		exit(1);
	}
}

static void grow(long fast, long rate, long mb, const char *ready, const char *go)
{
	long held = 0;
	double start;

	while (held < fast)
		grow_one(), held++;
	say_ready(ready);
	while (go && access(go, F_OK)) {
		struct timespec ts = { 0, 10 * 1000000 };

		nanosleep(&ts, NULL);
	}
	start = now();
	while (!mb || held < mb) {
		if (rate) {
			double due = start + (double)(held - fast + 1) / rate;
			double wait = due - now();

			if (wait > 0) {
				struct timespec ts = { (time_t)wait,
						       (long)((wait - (time_t)wait) * 1e9) };

				nanosleep(&ts, NULL);
			}
		}
		grow_one(), held++;
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "forks", required_argument, NULL, 'f' },
		{ "fast", required_argument, NULL, 'F' },
		{ "rate", required_argument, NULL, 'r' },
		{ "ready", required_argument, NULL, 'R' },
		{ "go", required_argument, NULL, 'g' },
		{ 0 }
	};
	long forks = 1, fast = 0, rate = 0, mb = 0;
	const char *ready = NULL, *go = NULL;
	char child_ready[PATH_MAX];
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			bad |= parse_long(optarg, 1, 1024, &forks);
			break;
		case 'F':
			bad |= parse_long(optarg, 0, 1 << 20, &fast);
			break;
		case 'r':
			bad |= parse_long(optarg, 0, 1 << 20, &rate);
			break;
		case 'R':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc - 1 ||
	    (optind == argc - 1 && parse_long(argv[optind], 0, 1 << 20, &mb)) ||
	    bad || (mb && fast > mb)) {
		fprintf(stderr, "usage: grower [--forks N] [--fast MB] "
			"[--rate MB_PER_S] [--ready FILE] [--go FILE] [MB]\n");
		return 2;
	}
	if (set_oom_score_adj("grower", 0))
		return 1;
	for (long i = 1; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("grower: fork");
			return 1;
		}
		if (!pid) {
			if (ready) {
				if (snprintf(child_ready, sizeof(child_ready), "%s.%ld",
					     ready, i) >= (int)sizeof(child_ready))
					return 2;
				ready = child_ready;
			}
			break;
		}
	}
	grow(fast, rate, mb, ready, go);
	return 0;
}
