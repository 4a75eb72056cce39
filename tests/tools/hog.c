// SPDX-License-Identifier: GPL-2.0
/*
 * hog - allocate and touch memory, for OOM tests.
 *
 *   hog [--adj N] [--ready FILE] [--hold] [--leader-exit] [--twins]
 *       [--file PATH] MB
 *
 * Sets its oom_score_adj (the VM harness runs at -1000 and children inherit
 * it), locks its code in memory, touches MB megabytes one page at a time,
 * creates FILE once all of it is resident, then exits 0, or with --hold
 * sleeps until killed. With --leader-exit a second thread does all that
 * while the main thread exits (pthread_exit()): the process keeps its
 * memory, but its thread-group leader's task->mm is NULL. With --twins it
 * then forks two children that sleep until killed, and writes their pids
 * into FILE: two processes the OOM killer scores the same (same memory,
 * same code run since the fork), whatever cgroups they are moved to.
 *
 * With --file the MB megabytes are the first MB of PATH instead, mapped
 * read-only, read one page at a time and locked as they are faulted in:
 * like anonymous memory without swap they cannot be reclaimed, so the
 * cgroup fills with page cache that the filesystem had to read, allocating
 * as it does. (With readahead off, as tests/vm/safety.bats sets it, each
 * fault reads its own page through the filesystem's read_folio.)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

static const char *ready, *file;
static long mb;
static int hold, twins;

/* Fault in the first mb megabytes of file, one page a fault, locked. */
static void read_file(long page)
{
	volatile const char *mem;
	size_t len = (size_t)mb << 20;
	struct stat st;
	long sum = 0;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "hog: %s: %s\n", file, strerror(errno));
		exit(1);
	}
	if ((size_t)st.st_size < len) {
		fprintf(stderr, "hog: %s has less than %ld MB\n", file, mb);
		exit(1);
	}
	/* Locked as faulted in, not populated at mmap() (MCL_ONFAULT). */
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) {
		perror("hog: mlockall");
		exit(1);
	}
	mem = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (mem == MAP_FAILED) {
		perror("hog: mmap");
		exit(1);
	}
	for (size_t off = 0; off < len; off += page)
		sum += mem[off];
	(void)sum;
}

/* Touch mb megabytes, say so in ready, hold them with --hold: exits. */
static void *work(void *arg __attribute__((unused)))
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	if (file) {
		read_file(page);
	} else {
		for (long i = 0; i < mb; i++) {
			if (take_mib()) {
				perror("hog: mmap");
				exit(1);
			}
		}
	}

	if (ready) {
		char pids[64] = "";
		pid_t twin[2];

		for (int i = 0; twins && i < 2; i++) {
			twin[i] = fork();
			if (twin[i] < 0) {
				perror("hog: fork");
				exit(1);
			}
			if (!twin[i])
				for (;;)
					pause();
		}
		if (twins)
			snprintf(pids, sizeof(pids), "%d %d\n", twin[0], twin[1]);
		/* Written whole, then renamed: a reader never sees half of it. */
		char tmp[PATH_MAX];

		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, pids, strlen(pids)) != (ssize_t)strlen(pids) ||
		    close(fd) || rename(tmp, ready)) {
			perror("hog: ready file");
			exit(1);
		}
	}
	while (hold)
		pause();
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adj", required_argument, NULL, 'a' },
		{ "ready", required_argument, NULL, 'r' },
		{ "hold", no_argument, NULL, 'H' },
		{ "leader-exit", no_argument, NULL, 'L' },
		{ "twins", no_argument, NULL, 'T' },
		{ "file", required_argument, NULL, 'f' },
		{ 0 }
	};
	int leader_exit = 0, c;
	pthread_t worker;
	long adj = 0;

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
		case 'L':
			leader_exit = 1;
			break;
		case 'T':
			twins = 1;
			break;
		case 'f':
			file = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || parse_long(argv[optind], 1, 1 << 20, &mb) ||
	    (twins && !ready)) {
		fprintf(stderr, "usage: hog [--adj N] [--ready FILE] [--hold] "
			"[--leader-exit] [--twins] [--file PATH] MB\n");
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

	if (!leader_exit)
		work(NULL);
	c = pthread_create(&worker, NULL, work, NULL);
	if (c) {
		fprintf(stderr, "hog: pthread_create: %s\n", strerror(c));
		return 1;
	}
	pthread_exit(NULL);
}
