// SPDX-License-Identifier: GPL-2.0
/*
 * forkhog - a process that keeps forking children that each allocate, for
 * OOM storm tests.
 *
 *   forkhog [--adj N] [--children N] [--ready FILE] MB
 *
 * Sets its oom_score_adj (inherited by its children), then keeps N children
 * (default 4) alive: each touches MB megabytes one page at a time and sleeps
 * until killed. Whenever a child ends (killed by the OOM killer, say),
 * another is forked in its place, forever: under a memory limit it is an
 * endless OOM storm. FILE is created once the first N children have all of
 * their memory resident. The parent allocates nothing itself; it is ended
 * by SIGKILL (cgroup.kill).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

/* The child: allocate and touch MB megabytes, report, sleep until killed. */
static void child(long mb, int report_fd)
{
	for (long i = 0; i < mb; i++)
		if (take_mib())
			_exit(1);
	if (report_fd >= 0) {
		(void)!write(report_fd, "r", 1);
		close(report_fd);
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adj", required_argument, NULL, 'a' },
		{ "children", required_argument, NULL, 'c' },
		{ "ready", required_argument, NULL, 'r' },
		{ 0 }
	};
	const char *ready = NULL;
	long adj = 0, nchildren = 4, mb;
	int c, fd, pipefd[2] = { -1, -1 };
	long alive = 0, ready_count = 0;
	char buf[64];

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (parse_long(optarg, -1000, 1000, &adj)) {
				fprintf(stderr, "forkhog: bad --adj '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (parse_long(optarg, 1, 1000, &nchildren)) {
				fprintf(stderr, "forkhog: bad --children '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || parse_long(argv[optind], 1, 1 << 20, &mb)) {
		fprintf(stderr, "usage: forkhog [--adj N] [--children N] [--ready FILE] MB\n");
		return 2;
	}

	if (set_oom_score_adj("forkhog", adj))
		return 1;

	/* The first generation reports through a pipe once its memory is in. */
	if (ready && pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("forkhog: pipe");
		return 1;
	}

	for (long generation = 0;; generation++) {
		while (alive < nchildren) {
			pid_t pid = fork();

			if (pid == 0) {
				if (pipefd[0] >= 0)
					close(pipefd[0]);
				child(mb, generation == 0 ? pipefd[1] : -1);
			}
			if (pid < 0) {
				/* Out of memory or pids: retry once one ends. */
				if (alive == 0) {
					struct timespec ts = { 0, 10 * 1000 * 1000 };

					nanosleep(&ts, NULL);
				}
				break;
			}
			alive++;
		}
		if (generation == 0 && pipefd[1] >= 0) {
			close(pipefd[1]);
			pipefd[1] = -1;
			/* EOF once every first-generation child reported or died. */
			ssize_t n;

			while ((n = read(pipefd[0], buf, sizeof(buf))) > 0 ||
			       (n < 0 && errno == EINTR))
				ready_count += n > 0 ? n : 0;
			close(pipefd[0]);
			pipefd[0] = -1;
			if (ready_count == nchildren) {
				fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				if (fd < 0) {
					perror("forkhog: ready file");
					return 1;
				}
				close(fd);
			}
		}
		if (alive > 0 && wait(NULL) > 0)
			alive--;
	}
}
