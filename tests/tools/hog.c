// SPDX-License-Identifier: GPL-2.0
/*
 * hog - allocate and touch memory, for OOM tests.
 *
 *   hog [--adj N] [--ready FILE] [--hold] MB
 *
 * Sets its oom_score_adj (the VM harness runs at -1000 and children inherit
 * it), locks its code in memory, touches MB megabytes one page at a time,
 * creates FILE once all of it is resident, then exits 0, or with --hold
 * sleeps until killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tool.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adj", required_argument, NULL, 'a' },
		{ "ready", required_argument, NULL, 'r' },
		{ "hold", no_argument, NULL, 'H' },
		{ 0 }
	};
	const char *ready = NULL;
	long adj = 0, mb;
	int hold = 0, c, fd;
	long page = sysconf(_SC_PAGESIZE);
	char *mem;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (parse_long(optarg, -1000, 1000, &adj)) {
				fprintf(stderr, "hog: bad --adj '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			ready = optarg;
			break;
		case 'H':
			hold = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || parse_long(argv[optind], 1, 1 << 20, &mb)) {
		fprintf(stderr, "usage: hog [--adj N] [--ready FILE] [--hold] MB\n");
		return 2;
	}

	if (set_oom_score_adj("hog", adj))
		return 1;

	/*
	 * Lock what is mapped now (this program, libc, the stack) so that the
	 * hog never waits on the test VM's 9p root once it allocates. 9p
	 * requests allocate with GFP_NOFS, and a GFP_NOFS allocation never
	 * invokes the global OOM killer: it retries until another allocation
	 * does. A hog refaulting its own code from 9p in a global OOM sat in
	 * that loop instead of causing the OOM (seen in the 256M VM: both vCPUs
	 * in 9p's GFP_NOFS reclaim for minutes, until a kthread's GFP_KERNEL
	 * allocation gave up). What the hog maps from here on is not locked.
	 */
	if (mlockall(MCL_CURRENT)) {
		perror("hog: mlockall");
		return 1;
	}

	/*
	 * One mebibyte at a time: a single mapping larger than RAM would be
	 * refused by the overcommit heuristic instead of causing an OOM.
	 */
	for (long i = 0; i < mb; i++) {
		mem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			perror("hog: mmap");
			return 1;
		}
		for (long off = 0; off < 1 << 20; off += page)
			mem[off] = 1;
	}

	if (ready) {
		fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror("hog: ready file");
			return 1;
		}
		close(fd);
	}
	while (hold)
		pause();
	return 0;
}
