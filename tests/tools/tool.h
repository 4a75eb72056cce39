/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool.h - what the test workloads (hog, forkhog, grower, sleepers, episode)
 * share: number parsing, setting their own oom_score_adj, taking memory.
 */
#ifndef OOMCTL_TEST_TOOL_H
#define OOMCTL_TEST_TOOL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/*
 * One more mebibyte of anonymous memory, touched a page at a time so that
 * it is resident; -1 if it cannot be mapped. One mebibyte at a time: a
 * single mapping larger than RAM would be refused by the overcommit
 * heuristic instead of causing an OOM.
 */
static inline int take_mib(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return -1;
	for (long off = 0; off < 1 << 20; off += page)
		mem[off] = 1;
	return 0;
}

#endif
