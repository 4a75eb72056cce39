// SPDX-License-Identifier: GPL-2.0
/*
 * test-stop.c - test only: OOMCTL_TEST_STOP_AT, for the suite that SIGKILLs
 * oomctl in the middle of attach, attach --replace and detach
 * (tests/vm/reliability-kill.bats). Not for operators: it makes oomctl stop
 * itself, holding the lock of the pin directory.
 *
 *   OOMCTL_TEST_STOP_AT=STEP[:N]  stop (SIGSTOP) the Nth time (default: the
 *                                 first) the run reaches STEP, after printing
 *                                 "oomctl: test step STEP:N: stopping (pid P)"
 *                                 to stderr; a SIGCONT lets it go on
 *   OOMCTL_TEST_STOP_AT=trace     print "oomctl: test step STEP:N" at every
 *                                 step reached, and go on
 *   OOMCTL_TEST_STOP_AT=list      print every step, a tab and what it means,
 *                                 and exit 0 whatever the command
 *
 * apply reaches the same steps when it re-attaches or detaches. An
 * unknown step or a bad N is a usage error (exit 2) before the command
 * runs, and a run that ends without reaching STEP:N fails (exit 1): a step
 * renamed in the code makes a stop at its old name fail, never pass without
 * stopping. The steps are listed once, TEST_STEPS in oomctl.h;
 * unset, a step costs the test of one flag.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "oomctl.h"

#define STEP_NAME(id, name, what) name,
#define STEP_WHAT(id, name, what) what,
static const char *const step_names[NR_TEST_STEPS] = { TEST_STEPS(STEP_NAME) };
static const char *const step_what[NR_TEST_STEPS] = { TEST_STEPS(STEP_WHAT) };

bool test_steps_on;
static bool trace;
static int stop_step = -1;
static unsigned long stop_nth;
static unsigned long reached[NR_TEST_STEPS];
static bool stopped;

int test_steps_init(void)
{
	const char *v = getenv("OOMCTL_TEST_STOP_AT");
	const char *colon;
	size_t len;

	if (!v)
		return 0;
	if (!strcmp(v, "list")) {
		for (int i = 0; i < NR_TEST_STEPS; i++)
			printf("%s\t%s\n", step_names[i], step_what[i]);
		return 1;
	}
	test_steps_on = true;
	if (!strcmp(v, "trace")) {
		trace = true;
		return 0;
	}
	colon = strchr(v, ':');
	len = colon ? (size_t)(colon - v) : strlen(v);
	for (int i = 0; i < NR_TEST_STEPS; i++)
		if (strlen(step_names[i]) == len && !strncmp(v, step_names[i], len))
			stop_step = i;
	if (stop_step < 0)
		return usage_err(NULL, "OOMCTL_TEST_STOP_AT: unknown step '%.*s' "
				 "(OOMCTL_TEST_STOP_AT=list lists them)", (int)len, v);
	stop_nth = 1;
	if (colon && parse_uint(colon + 1, 1, 1000, &stop_nth))
		return usage_err(NULL, "OOMCTL_TEST_STOP_AT: '%s': want STEP or "
				 "STEP:N, N 1..1000", v);
	return 0;
}

void test_step_reached(enum test_step s)
{
	unsigned long n = ++reached[s];

	if (trace)
		fprintf(stderr, "oomctl: test step %s:%lu\n", step_names[s], n);
	if ((int)s != stop_step || n != stop_nth)
		return;
	fprintf(stderr, "oomctl: test step %s:%lu: stopping (pid %d)\n",
		step_names[s], n, (int)getpid());
	stopped = true;
	raise(SIGSTOP);
}

int test_steps_end(int err)
{
	if (stop_step < 0 || stopped)
		return err;
	fprintf(stderr, "oomctl: OOMCTL_TEST_STOP_AT: step %s:%lu never reached "
		"(%lu times)\n", step_names[stop_step], stop_nth, reached[stop_step]);
	usage_error = false;	/* exit 1, whatever the command did */
	return -ESRCH;
}
