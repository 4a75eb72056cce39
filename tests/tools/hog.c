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
 * into FILE once both sleep: two processes the OOM killer scores the same
 * (the same memory, counted alike: see pin_to_this_cpu()), whatever cgroups
 * they are moved to.
 *
 * With --file the MB megabytes are the first MB of PATH instead, mapped
 * read-only, read one page at a time and locked as they are faulted in:
 * like anonymous memory without swap they cannot be reclaimed, so the
 * cgroup fills with page cache that the filesystem had to read, allocating
 * as it does. (With readahead off, as tests/vm/safety.bats sets it, each
 * fault reads its own page through the filesystem's read_folio.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

static const char *ready, *file;
static long mb;
static int hold, twins;

/*
 * Twins the OOM killer scores the same. oom_badness() reads a process's
 * RSS counters without their per-CPU parts: each CPU holds back up to 31
 * pages of a counter's changes until they pass the batch (percpu_counter;
 * /proc's status and smaps_rollup add them in, so they can agree while the
 * badness differs). Twins whose changes went through different CPUs scored
 * up to 30 pages apart with the same memory (the debug kernel, 3 of 20
 * runs of safety.bats' equal-candidates test: 8,768 and 8,884 kB against
 * 8,992 kB each in status). So the parent forks them pinned to one CPU,
 * which they inherit: their fork and start-up go through one CPU's part in
 * the same order. And it waits for both to sleep, their start-up faults
 * (fork's return, libc's child handlers: tens of pages of code) behind
 * them, before it says they are ready.
 */
static int pin_to_this_cpu(void)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/*
 * Wait until @pid sleeps in pause(2): 0, or -1 after 60 s.
 * /proc/PID/syscall shows the number of the call a task is blocked in, -1
 * while it waits on a fault, "running" while it runs.
 */
static int wait_paused(pid_t pid)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (int i = 0; i < 6000; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = '\0';
			if (strtol(buf, NULL, 10) == SYS_pause)
				return 0;
		}
		nanosleep(&tick, NULL);
	}
	return -1;
}

/*
 * Fork the twins (pinned, see pin_to_this_cpu()), wait for both to sleep
 * and write "PID PID\n" into @pids; exits on failure, killing them.
 */
static void fork_twins(char *pids, size_t size)
{
	pid_t twin[2] = { -1, -1 };

	if (pin_to_this_cpu()) {
		perror("hog: sched_setaffinity");
		exit(1);
	}
	for (int i = 0; i < 2; i++) {
		twin[i] = fork();
		if (twin[i] < 0) {
			perror("hog: fork");
			goto fail;
		}
		/* The very call wait_paused() looks for. */
		if (!twin[i])
			for (;;)
				syscall(SYS_pause);
	}
	for (int i = 0; i < 2; i++) {
		if (wait_paused(twin[i])) {
			fprintf(stderr, "hog: twin %d not asleep in pause() after 60 s\n", twin[i]);
			goto fail;
		}
	}
	snprintf(pids, size, "%d %d\n", twin[0], twin[1]);
	return;
fail:
	for (int i = 0; i < 2; i++)
		if (twin[i] > 0)
			kill(twin[i], SIGKILL);
	exit(1);
}

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

		if (twins)
			fork_twins(pids, sizeof(pids));
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
