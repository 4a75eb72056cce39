// SPDX-License-Identifier: GPL-2.0
/*
 * exit-stall - a process that is already exiting, holding its memory, for
 * as long as a test wants: what the OOM killer only marks, never kills.
 *
 *   exit-stall READY MB
 *
 * Forks a child that touches MB megabytes (oom_score_adj 0) and calls
 * exit_group(). The parent traces it with PTRACE_O_TRACEEXIT, so the child
 * stops in do_exit() at PTRACE_EVENT_EXIT: its group exit under way
 * (SIGNAL_GROUP_EXIT), its mm not yet released, its pages still charged.
 * That is the state task_will_free_mem() tells oom_kill_process() to mark
 * (mark_oom_victim(), the reaper queued) instead of killing. Once the child
 * is stopped there, its pid is written to READY. The parent stays at
 * oom_score_adj -1000 (inherited from the VM harness: never a candidate)
 * and holds the child until it gets SIGTERM or SIGINT; then it detaches and
 * reaps it (PTRACE_O_EXITKILL would also release it if the parent died).
 * Exits 0 once the child has exited, 1 on any error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void child(long mb)
{
	size_t len = (size_t)mb << 20, i;
	long page = sysconf(_SC_PAGESIZE);
	char *mem;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
		_exit(1);
	if (set_oom_score_adj("exit-stall", 0))
		_exit(1);
	mem = malloc(len);
	if (!mem)
		_exit(1);
	for (i = 0; i < len; i += page)
		mem[i] = 1;
	/* A group exit: the tracer stops us at PTRACE_EVENT_EXIT. */
	syscall(SYS_exit_group, 0);
	_exit(1);
}

static int write_ready(const char *path, pid_t pid)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "exit-stall: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	int status, event;
	long mb;
	pid_t pid;

	if (argc != 3 || parse_long(argv[2], 1, 1L << 20, &mb)) {
		fprintf(stderr, "usage: exit-stall READY MB\n");
		return 1;
	}
	/* Held until sigsuspend(): no signal is lost before it waits. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	pid = fork();
	if (pid < 0) {
		perror("exit-stall: fork");
		return 1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		child(mb);
	}

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL)) {
		perror("exit-stall: tracing the child");
		return 1;
	}
	/* Until it stops at its exit (or dies: then it never held still). */
	for (;;) {
		if (waitpid(pid, &status, 0) != pid) {
			perror("exit-stall: waitpid");
			return 1;
		}
		if (!WIFSTOPPED(status)) {
			fprintf(stderr, "exit-stall: child %d ended before its exit stop (status %#x)\n",
				pid, status);
			return 1;
		}
		event = status >> 16;
		if (WSTOPSIG(status) == SIGTRAP && event == PTRACE_EVENT_EXIT)
			break;
		/* A signal for the child (not SIGSTOP's): pass it on. */
		ptrace(PTRACE_CONT, pid, NULL,
		       (void *)(long)(WSTOPSIG(status) == SIGSTOP ? 0 : WSTOPSIG(status)));
	}
	if (write_ready(argv[1], pid))
		return 1;

	while (!stop)
		sigsuspend(&old);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	if (waitpid(pid, &status, 0) != pid) {
		perror("exit-stall: reaping the child");
		return 1;
	}
	return 0;
}
