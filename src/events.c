// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - oomctl events: every OOM decision of the attached policy, one
 * line each (JSON lines with -j), from its ring buffer.
 *
 * The policy records into the ring buffer whether or not anyone reads it;
 * the ring buffer keeps its consumer position, so each run starts after the
 * last event an earlier run consumed. Events are numbered in the kernel: a
 * gap in the numbers is events the full buffer could not take, reported as
 * such (map oomctl_events_seen carries the last number shown from one run
 * to the next). The pin directory's lock is held only while the maps are
 * opened, not while streaming.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "oomctl.h"

struct events_ctx {
	unsigned long count, shown;	/* stop after @count; 0: never */
	__u64 last_seq;
	int seen_fd;			/* map oomctl_events_seen */
	long long boot_to_real_ns;	/* CLOCK_REALTIME - CLOCK_BOOTTIME */
	struct cgroup_map *cm;
	const struct policy *policy;	/* attached when events started */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "2026-12-04T03:10:00.123+0000" for @boot_ns on CLOCK_BOOTTIME. */
static void format_time(const struct events_ctx *c, __u64 boot_ns, bool iso,
			char *buf, size_t sz)
{
	long long real = c->boot_to_real_ns + (long long)boot_ns;
	time_t sec = real / 1000000000LL;
	struct tm tm;
	size_t n;

	localtime_r(&sec, &tm);
	n = strftime(buf, sz, iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
	n += snprintf(buf + n, sz - n, ".%03lld", real % 1000000000LL / 1000000);
	if (iso)
		strftime(buf + n, sz - n, "%z", &tm);
}

static void report_drop(__u64 after, __u64 n)
{
	struct json_object *o;

	if (!json_output) {
		printf("(%llu event%s dropped after event %llu: the ring buffer was full)\n",
		       (unsigned long long)n, n == 1 ? "" : "s",
		       (unsigned long long)after);
		fflush(stdout);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "dropped", json_object_new_int64(n));
	json_object_object_add(o, "after_seq", json_object_new_int64(after));
	print_json(o);
	json_object_put(o);
}

static struct json_object *cgroup_or_null(struct cgroup_map *cm, __u64 id)
{
	const char *p = cgroup_map_path(cm, id, true);

	return p ? json_object_new_string(p) : NULL;
}

/* The kinds of event (enum oomctl_event_kind): JSON name, has a victim. */
static const struct { const char *name; bool victim; } kinds[] = {
	[OOMCTL_EV_KILL] = { "kill", true },
	[OOMCTL_EV_NO_VICTIM] = { "no_victim", false },
	[OOMCTL_EV_EXITING] = { "exiting", true },
	[OOMCTL_EV_GROUP_KILL] = { "group_kill", true },
	[OOMCTL_EV_OVERRUN] = { "overrun", false },
	[OOMCTL_EV_PAUSE] = { "pause", false },
	[OOMCTL_EV_RESUME] = { "resume", false },
};

static const char *const resume_reasons[] = {
	[OOMCTL_RESUME_ROOM] = "room",
	[OOMCTL_RESUME_KILL] = "kill",
	[OOMCTL_RESUME_LAPSED] = "lapsed",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool known_kind(const struct oomctl_event *e)
{
	return e->kind < N(kinds) && kinds[e->kind].name;
}

/* What happened and why, in words, into @buf. */
static void event_reason(const struct events_ctx *c, const struct oomctl_event *e,
			 char *buf, size_t sz)
{
	char rank[4400];

	switch (e->kind) {
	case OOMCTL_EV_KILL:
		rank_text(c->policy, &e->rank, e->candidates > 1 ? &e->runner_up_key1 : NULL,
			  c->cm, buf, sz);
		return;
	case OOMCTL_EV_EXITING:
		rank_text(c->policy, &e->rank, e->candidates > 1 ? &e->runner_up_key1 : NULL,
			  c->cm, rank, sizeof(rank));
		snprintf(buf, sz, "already exiting: the kernel marked it, killed nobody "
			 "(%s)", rank);
		return;
	case OOMCTL_EV_GROUP_KILL:
		snprintf(buf, sz, "in the victim's memory.oom.group");
		return;
	case OOMCTL_EV_NO_VICTIM:
		snprintf(buf, sz, "%s", e->rank.class == OOMCTL_ABORT ?
			 "aborted by the policy" :
			 "the policy chose no task: the kernel heuristic decides");
		return;
	case OOMCTL_EV_OVERRUN:
		snprintf(buf, sz, "the policy ran past the kernel's time budget "
			 "(vm.oom_bpf_budget_ms): the kernel heuristic decides");
		return;
	case OOMCTL_EV_PAUSE:
		snprintf(buf, sz, "OOMs paused by the policy: nothing is killed");
		return;
	case OOMCTL_EV_RESUME:
		snprintf(buf, sz, "pause ended after %.1f s: %s", e->paused_ns / 1e9,
			 e->detail == OOMCTL_RESUME_ROOM ?
			 "room again (memory freed or the limit raised)" :
			 e->detail == OOMCTL_RESUME_KILL ? "a task was killed" :
			 e->detail == OOMCTL_RESUME_LAPSED ?
			 "lapsed (no OOM aborted for 2 s)" : "unknown reason");
		return;
	}
	snprintf(buf, sz, "unknown event kind %u", e->kind);
}

static void event_text(const struct events_ctx *c, const struct oomctl_event *e,
		       const char *reason)
{
	const char *memcg = e->memcg_id ? cgroup_map_path(c->cm, e->memcg_id, true) : NULL;
	const char *cg = cgroup_map_path(c->cm, e->cgroup_id, true);
	char when[64];

	format_time(c, e->time_ns, false, when, sizeof(when));
	printf("%s  %s%s  %s  ", when, e->memcg_id ? "memcg " : "global",
	       e->memcg_id ? (memcg ? memcg : "(removed cgroup)") : "", e->policy_name);
	switch (e->kind) {
	case OOMCTL_EV_KILL:
	case OOMCTL_EV_GROUP_KILL:
		printf("killed %u (%s) in %s, rss %.1f MiB: %s\n", e->pid, e->comm,
		       cg ? cg : "(removed cgroup)", e->rss_pages * 4096.0 / (1 << 20),
		       reason);
		return;
	case OOMCTL_EV_EXITING:
		printf("chose %u (%s) in %s: %s\n", e->pid, e->comm,
		       cg ? cg : "(removed cgroup)", reason);
		return;
	case OOMCTL_EV_NO_VICTIM:
		printf("no victim: %s\n", reason);
		return;
	}
	printf("%s: %s\n", known_kind(e) ? kinds[e->kind].name : "event", reason);
}

static struct json_object *event_json(const struct events_ctx *c,
				      const struct oomctl_event *e, const char *reason)
{
	struct json_object *o = json_object_new_object(), *v;
	char when[64];

	format_time(c, e->time_ns, true, when, sizeof(when));
	json_object_object_add(o, "seq", json_object_new_int64(e->seq));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "boottime_ns", json_object_new_int64(e->time_ns));
	json_object_object_add(o, "kind", json_object_new_string(
			       known_kind(e) ? kinds[e->kind].name : "unknown"));
	json_object_object_add(o, "scope", json_object_new_string(
			       e->memcg_id ? "memcg" : "global"));
	json_object_object_add(o, "memcg", e->memcg_id ? cgroup_or_null(c->cm, e->memcg_id) : NULL);
	json_object_object_add(o, "memcg_id", json_object_new_int64(e->memcg_id));
	json_object_object_add(o, "policy_name", json_object_new_string(e->policy_name));
	if (known_kind(e) && kinds[e->kind].victim) {
		v = json_object_new_object();
		json_object_object_add(v, "pid", json_object_new_int64(e->pid));
		json_object_object_add(v, "comm", json_object_new_string(e->comm));
		json_object_object_add(v, "cgroup", cgroup_or_null(c->cm, e->cgroup_id));
		json_object_object_add(v, "cgroup_id", json_object_new_int64(e->cgroup_id));
		json_object_object_add(v, "rss_kb", json_object_new_int64(e->rss_pages * 4));
		json_object_object_add(o, "victim", v);
	} else {
		json_object_object_add(o, "victim", NULL);
	}
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "rank", rank_json(c->policy, &e->rank, c->cm));
	json_object_object_add(o, "candidates", json_object_new_int64(e->candidates));
	if (e->kind == OOMCTL_EV_RESUME) {
		json_object_object_add(o, "paused_ms",
				       json_object_new_int64(e->paused_ns / 1000000));
		json_object_object_add(o, "resume_reason", json_object_new_string(
				       e->detail < N(resume_reasons) ?
				       resume_reasons[e->detail] : "unknown"));
	}
	return o;
}

/* One record from the ring buffer; < 0 stops the poll (count reached). */
static int handle_event(void *ctx, void *data, size_t len)
{
	struct events_ctx *c = ctx;
	const struct oomctl_event *e = data;
	__u32 zero = 0;
	char reason[4600];

	if (len < sizeof(*e))
		return 0;
	if (c->last_seq && e->seq > c->last_seq + 1)
		report_drop(c->last_seq, e->seq - c->last_seq - 1);
	c->last_seq = e->seq;
	bpf_map_update_elem(c->seen_fd, &zero, &c->last_seq, BPF_ANY);

	/* A path resolved now: a cgroup created since the last lookup. */
	if ((e->cgroup_id && !cgroup_map_path(c->cm, e->cgroup_id, false)) ||
	    (e->memcg_id && !cgroup_map_path(c->cm, e->memcg_id, false))) {
		cgroup_map_free(c->cm);
		c->cm = cgroup_map_build();
	}
	event_reason(c, e, reason, sizeof(reason));
	if (json_output) {
		struct json_object *o = event_json(c, e, reason);

		print_json(o);
		json_object_put(o);
	} else {
		event_text(c, e, reason);
		fflush(stdout);
	}
	c->shown++;
	return c->count && c->shown >= c->count ? -ECANCELED : 0;
}

struct events_args {
	const char *count, *timeout;
};

enum { OPT_COUNT = 0x400, OPT_TIMEOUT };

static int events_opt(int c, const char *arg, void *ctx)
{
	struct events_args *a = ctx;

	if (c == OPT_COUNT)
		a->count = arg;
	else if (c == OPT_TIMEOUT)
		a->timeout = arg;
	else
		return usage_err("events", "unknown option");
	return 0;
}

int do_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ 0 }
	};
	struct events_args args = {};
	struct events_ctx c = { .seen_fd = -1 };
	struct session s = SESSION_INIT("events");
	struct ring_buffer *rb = NULL;
	unsigned long timeout = 0;
	long long deadline = 0;
	int first, err, rb_fd;
	__u32 zero = 0;

	err = parse_cmd_opts("events", argc, argv, opts, NULL, events_opt, &args, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first < argc)
		return usage_err("events", "unexpected argument '%s'", argv[first]);
	if (args.count && (err = parse_uint(args.count, 1, ULONG_MAX / 2, &c.count)))
		return usage_err("events", "--count '%s' is %s, want a number from 1",
				 args.count, err == -ERANGE ? "out of range" :
				 "not a decimal integer");
	if (args.timeout && (err = parse_uint(args.timeout, 0, 31536000, &timeout)))
		return usage_err("events", "--timeout '%s' is %s, want seconds, 0..31536000",
				 args.timeout, err == -ERANGE ? "out of range" :
				 "not a decimal integer");
	err = need_caps("events", NEED_ADMIN);
	if (err)
		return err;
	err = session_open(&s, SESSION_POLICY);
	if (err)
		goto out;
	c.policy = s.a.policy;
	rb_fd = err = session_pin(&s, PIN_MAP, "oomctl_events");
	if (err >= 0)
		c.seen_fd = err = session_pin(&s, PIN_MAP, "oomctl_events_seen");
	/* Streaming must not keep other oomctl commands waiting. */
	session_unlock(&s);
	if (err < 0)
		goto out;
	bpf_map_lookup_elem(c.seen_fd, &zero, &c.last_seq);
	c.boot_to_real_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
	c.cm = cgroup_map_build();
	rb = ring_buffer__new(rb_fd, handle_event, &c, NULL);
	if (!rb) {
		err = -errno;
		p_err("events: cannot read the ring buffer: %s", strerror(-err));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (args.timeout)
		deadline = clock_ns(CLOCK_MONOTONIC) + (long long)timeout * 1000000000LL;
	/* What was recorded meanwhile first, then new events as they come. */
	err = ring_buffer__consume(rb);
	while (!stop && err >= 0 && !(c.count && c.shown >= c.count)) {
		long long left = args.timeout ? deadline - clock_ns(CLOCK_MONOTONIC) : 1000000000LL;

		if (left <= 0)
			break;
		err = ring_buffer__poll(rb, left > 1000000000LL ? 1000 : (int)(left / 1000000) + 1);
		if (err == -EINTR)
			err = 0;
	}
	if (err < 0 && err != -ECANCELED) {
		p_err("events: reading the ring buffer: %s", strerror(-err));
		goto out;
	}
	/* A script waiting for N events learns that they did not come. */
	err = 0;
	if (c.count && c.shown < c.count && !stop) {
		p_err("events: %lu of %lu events within %lu s", c.shown, c.count, timeout);
		err = -ETIME;
	}
out:
	ring_buffer__free(rb);
	cgroup_map_free(c.cm);
	session_close(&s);
	return err;
}
