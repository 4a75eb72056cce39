/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h - what the test workloads (hog, forkhog, sleepers) share: number
 * parsing and setting their own oom_score_adj.
 */
#ifndef OOMCTL_TEST_TOOL_H
#define OOMCTL_TEST_TOOL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A whole decimal number in [min, max], or -1. */
static inline int parse_long(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end || *out < min || *out > max)
		return -1;
	return 0;
}

/*
 * The VM harness runs at oom_score_adj -1000 and children inherit it: a
 * workload sets its own, 0 unless told otherwise, or no OOM could pick it.
 */
static inline int set_oom_score_adj(const char *prog, long adj)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	if (fd < 0 || dprintf(fd, "%ld", adj) < 0) {
		fprintf(stderr, "%s: oom_score_adj: %m\n", prog);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

#endif
