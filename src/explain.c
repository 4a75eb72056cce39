// SPDX-License-Identifier: GPL-2.0
/*
 * explain.c - oomctl explain: the ranking the attached policy would give
 * the processes of an OOM right now, without an OOM.
 *
 * The ranks come from the kernel: the policy's explain iterator (iter/task,
 * pinned as link_oomctl_explain) calls the policy's own decision function,
 * policy_rank(), the one its bpf_oom_evaluate_task program calls, and marks
 * the processes the kernel itself would pass over. Here they are only
 * sorted the way the OOM scan decides: the best candidate wins (the
 * smallest key1, then the largest key2); a task left to the kernel
 * heuristic is chosen only when there is no candidate, by badness; an
 * abort means no victim. The pin directory stays locked while the
 * iterator's arguments are written and read back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

/* The order of the classes in the ranking. */
static int class_order(__u32 class)
{
	switch (class) {
	case OOMCTL_CANDIDATE: return 0;
	case OOMCTL_HEURISTIC: return 1;
	case OOMCTL_ABORT: return 2;
	}
	return 3;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct oomctl_explain_rec *a = pa, *b = pb;
	int ca = class_order(a->rank.class), cb = class_order(b->rank.class);

	if (ca != cb)
		return ca - cb;
	if (a->rank.class == OOMCTL_CANDIDATE) {
		if (a->rank.key1 != b->rank.key1)
			return a->rank.key1 < b->rank.key1 ? -1 : 1;
		if (a->rank.key2 != b->rank.key2)
			return a->rank.key2 > b->rank.key2 ? -1 : 1;
	} else if (a->rank.class == OOMCTL_HEURISTIC && a->badness != b->badness) {
		return a->badness > b->badness ? -1 : 1;
	}
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static unsigned long long meminfo_kb(const char *key)
{
	char line[256];
	unsigned long long v = 0, kb;
	size_t kl = strlen(key);
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':' &&
		    sscanf(line + kl + 1, "%llu", &kb) == 1)
			v = kb;
	if (f)
		fclose(f);
	return v;
}

/*
 * oom_control.totalpages of the OOM: RAM and swap for a global one; for a
 * memcg, memory.max plus the swap it may use (mem_cgroup_get_max()), or
 * the global figure when it has no limit. It scales oom_score_adj only.
 */
static __u64 totalpages(const struct cgroup_ref *cg)
{
	__u64 global = (meminfo_kb("MemTotal") + meminfo_kb("SwapTotal")) / 4;
	char path[4200], buf[64];
	unsigned long long max, swap;
	FILE *f;

	if (!cg)
		return global;
	snprintf(path, sizeof(path), "%s/memory.max", cg->path);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu", &max) != 1) {
		if (f)
			fclose(f);
		return global;
	}
	fclose(f);
	max /= 4096;
	swap = meminfo_kb("SwapTotal") / 4;
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg->path);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f)) {
		unsigned long long s;

		if (sscanf(buf, "%llu", &s) == 1 && s / 4096 < swap)
			swap = s / 4096;
	}
	if (f)
		fclose(f);
	return max + swap ? max + swap : 1;
}

struct explained {
	struct oomctl_explain_rec *v;
	size_t n;
	size_t nranked;		/* candidates, heuristic and abort ones */
};

/* Run the iterator: one record per process, into @x; 0 or -errno after one line. */
static int run_iterator(int link_fd, struct explained *x)
{
	int fd = bpf_iter_create(link_fd), err;
	size_t cap = 0;
	ssize_t got;

	if (fd < 0) {
		err = -errno;
		p_err("explain: cannot run the policy's iterator: %s", strerror(-err));
		return err;
	}
	for (;;) {
		if (x->n == cap) {
			struct oomctl_explain_rec *more;

			cap = cap ? cap * 2 : 256;
			more = realloc(x->v, cap * sizeof(*more));
			if (!more) {
				p_err("explain: out of memory");
				close(fd);
				return -ENOMEM;
			}
			x->v = more;
		}
		got = read(fd, &x->v[x->n], sizeof(*x->v));
		if (got == 0)
			break;
		if (got < 0 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof(*x->v)) {
			err = got < 0 ? -errno : -EIO;
			p_err("explain: reading the iterator: %s", got < 0 ?
			      strerror(-err) : "a short record");
			close(fd);
			return err;
		}
		x->n++;
	}
	close(fd);
	return 0;
}

static struct json_object *task_json(const struct policy *p,
				     const struct oomctl_explain_rec *r,
				     struct cgroup_map *cm, const char *reason)
{
	struct json_object *o = json_object_new_object();
	const char *cg = cgroup_map_path(cm, r->cgroup_id, true);

	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(o, "comm", json_object_new_string(r->comm));
	json_object_object_add(o, "cgroup", cg ? json_object_new_string(cg) : NULL);
	json_object_object_add(o, "cgroup_id", json_object_new_int64(r->cgroup_id));
	json_object_object_add(o, "rss_kb", json_object_new_int64(r->rss_pages * 4));
	json_object_object_add(o, "oom_score_adj", json_object_new_int(r->oom_score_adj));
	json_object_object_add(o, "badness", r->rank.class == OOMCTL_SKIP ? NULL :
			       json_object_new_int64(r->badness));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "rank", rank_json(p, &r->rank, cm));
	return o;
}

/* What the OOM would do: kill the first ranked task, abort, wait, nothing. */
static const char *outcome(const struct explained *x, const struct oomctl_explain_rec **victim)
{
	*victim = NULL;
	for (size_t i = 0; i < x->n; i++) {
		if (x->v[i].rank.class == OOMCTL_SKIP &&
		    x->v[i].rank.reason == OOMCTL_SKIP_VICTIM) {
			*victim = &x->v[i];
			return "wait";
		}
	}
	/* The scan stops at the first abort, wherever that task comes. */
	for (size_t i = 0; i < x->nranked; i++)
		if (x->v[i].rank.class == OOMCTL_ABORT)
			return "abort";
	if (x->nranked) {
		*victim = &x->v[0];
		return "kill";
	}
	return "none";
}

static void explain_text(struct json_object *o, const void *ctx)
{
	struct json_object *ranked = jget(o, "ranked"), *skipped = jget(o, "skipped");
	struct json_object *v = jget(o, "victim");
	const char *out = jstr(o, "outcome");
	size_t nskip = json_object_array_length(skipped);

	(void)ctx;
	printf("explain: a %s OOM%s%s (totalpages %lld), policy %s (policy_name %s)\n",
	       jstr(o, "scope"), jget(o, "memcg") ? " of " : "",
	       jget(o, "memcg") ? jstr(o, "memcg") : "", jint(o, "totalpages"),
	       jstr(o, "policy"), jstr(o, "policy_name"));
	if (!strcmp(out, "kill"))
		printf("victim:  pid %lld (%s) in %s: %s\n", jint(v, "pid"), jstr(v, "comm"),
		       jget(v, "cgroup") ? jstr(v, "cgroup") : "(removed cgroup)",
		       jstr(v, "reason"));
	else if (!strcmp(out, "wait"))
		printf("victim:  none new: pid %lld (%s) is still dying, the kernel waits for it\n",
		       jint(v, "pid"), jstr(v, "comm"));
	else if (!strcmp(out, "abort"))
		printf("victim:  none: the policy aborts this OOM (the cgroup pauses: its faulting\n"
		       "         tasks wait for memory; see max-pause)\n");
	else
		printf("victim:  none: every process is passed over\n");
	if (json_object_array_length(ranked))
		printf("%3s  %7s  %-15s  %-24s  %8s  %10s  %s\n", "#", "pid", "comm",
		       "cgroup", "rss MiB", "badness", "reason");
	for (size_t i = 0; i < json_object_array_length(ranked); i++) {
		struct json_object *t = json_object_array_get_idx(ranked, i);

		printf("%3zu  %7lld  %-15s  %-24s  %8.1f  %10lld  %s\n", i + 1,
		       jint(t, "pid"), jstr(t, "comm"),
		       jget(t, "cgroup") ? jstr(t, "cgroup") : "(removed)",
		       jint(t, "rss_kb") / 1024.0, jint(t, "badness"), jstr(t, "reason"));
	}
	if (jint(o, "more"))
		printf("     ... %lld more (--top)\n", jint(o, "more"));
	if (nskip)
		printf("passed over: %zu process%s (-j lists them with the reason)\n",
		       nskip, nskip == 1 ? "" : "es");
}

struct explain_args {
	const char *cgroup, *top;
};

enum { OPT_CGROUP = 0x500, OPT_TOP };

static int explain_opt(int c, const char *arg, void *ctx)
{
	struct explain_args *a = ctx;

	if (c == OPT_CGROUP)
		a->cgroup = arg;
	else if (c == OPT_TOP)
		a->top = arg;
	else
		return usage_err("explain", "unknown option");
	return 0;
}

int do_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "top", required_argument, NULL, OPT_TOP },
		{ 0 }
	};
	struct explain_args args = {};
	struct explained x = {};
	struct session s = SESSION_INIT("explain");
	struct oomctl_explain_args ia = {};
	struct cgroup_ref cg;
	struct cgroup_map *cm = NULL;
	struct json_object *res, *ranked, *skipped;
	const struct oomctl_explain_rec *victim;
	const struct attached *a = &s.a;
	unsigned long top = 10;
	int first, err, args_fd, link_fd;
	__u32 zero = 0;
	char reason[4400];

	err = parse_cmd_opts("explain", argc, argv, opts, NULL, explain_opt, &args, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first < argc)
		return usage_err("explain", "unexpected argument '%s'", argv[first]);
	if (args.top && (err = parse_uint(args.top, 0, 1000000, &top)))
		return usage_err("explain", "--top '%s' is %s, want 0..1000000 (0: all)",
				 args.top, err == -ERANGE ? "out of range" :
				 "not a decimal integer");
	if ((err = need_caps("explain", NEED_ADMIN)) ||
	    (args.cgroup && (err = cgroup_resolve(args.cgroup, &cg))))
		return err;
	err = session_open(&s, SESSION_POLICY);
	if (err)
		goto out;
	ia.memcg_id = args.cgroup ? cg.id : 0;
	ia.totalpages = totalpages(args.cgroup ? &cg : NULL);
	args_fd = err = session_pin(&s, PIN_MAP, "oomctl_explain_args");
	if (err >= 0)
		link_fd = err = session_pin(&s, PIN_LINK, "oomctl_explain");
	if (err < 0)
		goto out;
	if (bpf_map_update_elem(args_fd, &zero, &ia, BPF_ANY)) {
		err = -errno;
		p_err("explain: cannot set the iterator's arguments: %s", strerror(-err));
		goto out;
	}
	err = run_iterator(link_fd, &x);
	if (err)
		goto out;
	session_unlock(&s);

	qsort(x.v, x.n, sizeof(*x.v), cmp_rec);
	while (x.nranked < x.n && x.v[x.nranked].rank.class != OOMCTL_SKIP)
		x.nranked++;
	cm = cgroup_map_build();
	res = json_object_new_object();
	json_object_object_add(res, "scope", json_object_new_string(args.cgroup ? "memcg" : "global"));
	json_object_object_add(res, "memcg", args.cgroup ? json_object_new_string(cg.cgpath) : NULL);
	json_object_object_add(res, "memcg_id", json_object_new_int64(ia.memcg_id));
	json_object_object_add(res, "totalpages", json_object_new_int64(ia.totalpages));
	json_object_object_add(res, "policy", json_object_new_string(a->policy->name));
	json_object_object_add(res, "policy_name", json_object_new_string(a->cfg.name));
	json_object_object_add(res, "outcome", json_object_new_string(outcome(&x, &victim)));
	if (victim) {
		rank_text(a->policy, &victim->rank, NULL, cm, reason, sizeof(reason));
		json_object_object_add(res, "victim", task_json(a->policy, victim, cm, reason));
	} else {
		json_object_object_add(res, "victim", NULL);
	}
	ranked = json_object_new_array();
	skipped = json_object_new_array();
	for (size_t i = 0; i < x.n; i++) {
		if (i < x.nranked && top && i >= top)
			continue;
		rank_text(a->policy, &x.v[i].rank, NULL, cm, reason, sizeof(reason));
		json_object_array_add(i < x.nranked ? ranked : skipped,
				      task_json(a->policy, &x.v[i], cm, reason));
	}
	json_object_object_add(res, "ranked", ranked);
	json_object_object_add(res, "more", json_object_new_int64(
			       top && x.nranked > top ? x.nranked - top : 0));
	json_object_object_add(res, "skipped", skipped);
	print_result(res, explain_text, NULL);
	json_object_put(res);
out:
	cgroup_map_free(cm);
	free(x.v);
	session_close(&s);
	return err;
}
