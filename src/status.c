// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - oomctl status and oomctl list: everything read back from the
 * pins and the kernel, never from oomctl's own memory of what it did.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

static struct json_object *jstring_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static struct json_object *counters(const struct oomctl_stats *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "invocations", json_object_new_int64(s->invocations));
	json_object_object_add(o, "selections", json_object_new_int64(s->selections));
	json_object_object_add(o, "kills", json_object_new_int64(s->kills));
	json_object_object_add(o, "failures", json_object_new_int64(s->failures));
	json_object_object_add(o, "events", json_object_new_int64(s->events));
	json_object_object_add(o, "events_dropped", json_object_new_int64(s->events_dropped));
	json_object_object_add(o, "marked", json_object_new_int64(s->marked));
	json_object_object_add(o, "overruns", json_object_new_int64(s->overruns));
	json_object_object_add(o, "pauses", json_object_new_int64(s->pauses));
	return o;
}

/*
 * Failed selections in the recent windows (see struct oomctl_failwin), and
 * the warning status gives when they reach OOMCTL_FAIL_WARN: a policy that
 * keeps failing may be stalling a cgroup.
 */
static struct json_object *recent_failures(const struct oomctl_failwin *w,
					   struct json_object *warnings)
{
	const __u64 window = OOMCTL_FAIL_WINDOW_S * 1000000000ULL;
	struct json_object *o = json_object_new_object();
	struct timespec ts;
	__u64 now, age, worst = 0;
	char msg[256];

	clock_gettime(CLOCK_BOOTTIME, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	age = w->start_ns && now > w->start_ns ? now - w->start_ns : 0;
	if (w->start_ns && age < 2 * window)
		worst = w->count;	/* the current window, or one that just ended */
	if (w->start_ns && age < window && w->prev_count > worst)
		worst = w->prev_count;
	json_object_object_add(o, "window_s", json_object_new_int(OOMCTL_FAIL_WINDOW_S));
	json_object_object_add(o, "threshold", json_object_new_int(OOMCTL_FAIL_WARN));
	json_object_object_add(o, "max_in_window", json_object_new_int64(worst));
	json_object_object_add(o, "last_s_ago", w->last_ns ?
			       json_object_new_int64((now - w->last_ns) / 1000000000ULL) :
			       NULL);
	if (worst >= OOMCTL_FAIL_WARN) {
		snprintf(msg, sizeof(msg), "selection failed %llu times within %d s "
			 "(last %llu s ago): an OOMing cgroup may be stalled, see "
			 "oomctl-policies(7)", (unsigned long long)worst,
			 OOMCTL_FAIL_WINDOW_S,
			 (unsigned long long)((now - w->last_ns) / 1000000000ULL));
		json_object_array_add(warnings, json_object_new_string(msg));
	}
	return o;
}

static struct json_object *victim(const struct oomctl_victim *v)
{
	struct cgroup_map *cm;
	struct json_object *o;
	char comm[17], name[OOMCTL_NAME_LEN + 1];

	if (!v->seq)
		return NULL;
	cm = cgroup_map_build();
	o = json_object_new_object();
	snprintf(comm, sizeof(comm), "%.16s", v->comm);
	snprintf(name, sizeof(name), "%.16s", v->policy_name);
	json_object_object_add(o, "pid", json_object_new_int64(v->pid));
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "cgroup_id", json_object_new_int64(v->cgroup_id));
	json_object_object_add(o, "cgroup",
			       jstring_or_null(cgroup_map_path(cm, v->cgroup_id, true)));
	json_object_object_add(o, "policy_name", json_object_new_string(name));
	json_object_object_add(o, "kill", json_object_new_int64(v->seq));
	cgroup_map_free(cm);
	return o;
}

static struct json_object *pinned(const struct pindir *pd, struct pinned_obj *pins,
				  size_t n, bool links)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o;
		char path[PATH_MAX + 300];

		if (pins[i].is_link != links)
			continue;
		o = json_object_new_object();
		snprintf(path, sizeof(path), "%s/%s/%s", pd->path, POLICY_SUBDIR,
			 pins[i].name);
		json_object_object_add(o, "pin", json_object_new_string(path));
		json_object_object_add(o, "id", json_object_new_int64(pins[i].id));
		if (links) {
			json_object_object_add(o, "prog_id", json_object_new_int64(pins[i].prog_id));
			json_object_object_add(o, "prog_name", json_object_new_string(pins[i].obj_name));
		} else {
			json_object_object_add(o, "name", json_object_new_string(pins[i].obj_name));
		}
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * Links on the OOM hooks that are not pinned in our policy directory, in
 * *@out: 0, or -errno after one line.
 */
static int foreign(const struct hooks *h, struct pinned_obj *pins, size_t npins,
		   struct json_object **out)
{
	struct json_object *a;
	struct hooked_link *links;
	size_t n;
	int err = hooked_links(h, &links, &n);

	if (err)
		return err;
	a = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		struct json_object *o;
		bool ours = false;

		for (size_t j = 0; j < npins; j++)
			ours |= pins[j].is_link && pins[j].id == links[i].link_id;
		if (ours)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "hook", json_object_new_string(hook_names[links[i].hook]));
		json_object_object_add(o, "link_id", json_object_new_int64(links[i].link_id));
		json_object_object_add(o, "prog_id", json_object_new_int64(links[i].prog_id));
		json_object_object_add(o, "prog_name", json_object_new_string(links[i].prog_name));
		json_object_array_add(a, o);
	}
	free(links);
	*out = a;
	return 0;
}

/* One cgroup per line, for slices and scope. */
static void cgroups_text(const char *title, struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		printf("%-14s%s\n", i ? "" : title, jget(e, "path") ?
		       jstr(e, "path") : "(removed cgroup)");
	}
}

/*
 * The entries of the attached policy @p, unless it is one of the four whose
 * words status_text() has lines of its own for: under its own key.
 */
static void other_entries_text(struct json_object *o, const struct policy *p)
{
	static const char *const known[] = { "prios", "slices", "scope", "pids" };
	struct json_object *a;
	char title[32];

	if (!p || !p->map || !(a = jget(o, p->entries)))
		return;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(p->entries, known[i]))
			return;
	snprintf(title, sizeof(title), "%s:", p->entries);
	entries_text(p, a, title, NULL);
}

/* @ctx: the attached policy, NULL if none. */
static void status_text(struct json_object *o, const void *ctx)
{
	struct json_object *c = jget(o, "counters"), *v = jget(o, "last_victim");
	struct json_object *a, *f = jget(o, "foreign"), *w = jget(o, "warnings");

	if (!json_object_get_boolean(jget(o, "attached"))) {
		printf("policy:       none attached\n");
	} else {
		printf("policy:       %s\n", jstr(o, "policy"));
		printf("policy_name:  %s (configured)", jstr(o, "name"));
		if (jget(o, "last_policy_name"))
			printf(", %s (read back at the last kill)", jstr(o, "last_policy_name"));
		printf("\n");
		if (jget(o, "default_prio"))
			printf("default prio: %lld\n", jint(o, "default_prio"));
		if (jget(o, "max_pause_s"))
			printf("max pause:    %lld s\n", jint(o, "max_pause_s"));
		else if (json_object_object_get_ex(o, "max_pause_s", NULL))
			printf("max pause:    infinity\n");
		printf("pinned in:    %s\n", jstr(o, "pin_dir"));
		printf("counters:     invocations %lld, selections %lld, kills %lld, failures %lld\n",
		       jint(c, "invocations"), jint(c, "selections"), jint(c, "kills"),
		       jint(c, "failures"));
		printf("              marked %lld, overruns %lld, pauses %lld\n",
		       jint(c, "marked"), jint(c, "overruns"), jint(c, "pauses"));
		printf("events:       %lld recorded, %lld dropped (ring buffer full)\n",
		       jint(c, "events") - jint(c, "events_dropped"),
		       jint(c, "events_dropped"));
		if (v)
			printf("last victim:  pid %lld (%s) in %s, policy_name %s\n",
			       jint(v, "pid"), jstr(v, "comm"),
			       jget(v, "cgroup") ? jstr(v, "cgroup") : "(removed cgroup)",
			       jstr(v, "policy_name"));
		else
			printf("last victim:  none yet\n");
		a = jget(o, "links");
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *l = json_object_array_get_idx(a, i);

			printf("link:         id %-5lld prog %-5lld %-16s %s\n", jint(l, "id"),
			       jint(l, "prog_id"), jstr(l, "prog_name"), jstr(l, "pin"));
		}
		a = jget(o, "maps");
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *m = json_object_array_get_idx(a, i);

			printf("map:          id %-5lld %-27s %s\n", jint(m, "id"),
			       jstr(m, "name"), jstr(m, "pin"));
		}
		if ((a = jget(o, "prios"))) {
			printf("prios:        %s\n", json_object_array_length(a) ? "" : "none");
			for (size_t i = 0; i < json_object_array_length(a); i++) {
				struct json_object *e = json_object_array_get_idx(a, i);

				printf("  %5lld  %s\n", jint(e, "prio"), jget(e, "path") ?
				       jstr(e, "path") : "(removed cgroup)");
			}
		}
		if ((a = jget(o, "slices"))) {
			if (!json_object_array_length(a))
				printf("slices:       none (the kernel heuristic decides)\n");
			cgroups_text("slices:", a);
		}
		if ((a = jget(o, "scope"))) {
			if (!json_object_get_boolean(jget(o, "scoped")))
				printf("aborts:       every memcg OOM\n");
			else if (!json_object_array_length(a))
				printf("aborts:       nothing (its cgroups are gone)\n");
			cgroups_text("aborts:", a);
		}
		if ((a = jget(o, "pids"))) {
			printf("pids:         %s\n", json_object_array_length(a) ? "" : "none");
			for (size_t i = 0; i < json_object_array_length(a); i++) {
				struct json_object *e = json_object_array_get_idx(a, i);

				printf("  %7lld  %s\n", jint(e, "pid"), jget(e, "comm") ?
				       jstr(e, "comm") : "(exited)");
			}
		}
		other_entries_text(o, ctx);
	}
	for (size_t i = 0; w && i < json_object_array_length(w); i++)
		printf("warning:      %s\n", json_object_get_string(
		       json_object_array_get_idx(w, i)));
	if (!f || !json_object_array_length(f)) {
		printf("foreign:      none on the OOM hooks\n");
		return;
	}
	for (size_t i = 0; i < json_object_array_length(f); i++) {
		struct json_object *l = json_object_array_get_idx(f, i);

		printf("foreign:      prog '%s' (id %lld, link %lld) on %s\n",
		       jstr(l, "prog_name"), jint(l, "prog_id"), jint(l, "link_id"),
		       jstr(l, "hook"));
	}
}

int do_status(int argc, char **argv)
{
	struct session s = SESSION_INIT("status");
	const struct attached *a = &s.a;
	struct pinned_obj *pins = NULL;
	struct json_object *res, *fl, *warnings = json_object_new_array();
	struct hooks hooks;
	size_t npins = 0;
	int first, err;

	err = parse_cmd_opts("status", argc, argv, NULL, NULL, NULL, NULL, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first < argc)
		return usage_err("status", "unexpected argument '%s'", argv[first]);
	if ((err = need_caps("status", NEED_ADMIN)) || (err = hooks_find(&hooks)))
		return err;
	/* What a killed run left is not attached in any sense that lasts. */
	err = session_open(&s, SESSION_CLEAN);
	if (err)
		goto out;

	res = json_object_new_object();
	json_object_object_add(res, "attached", json_object_new_boolean(a->present));
	if (a->present) {
		char dir[PATH_MAX + 16];
		char name[OOMCTL_NAME_LEN + 1];
		int fd;

		list_pins(&s.pd, POLICY_SUBDIR, &pins, &npins);
		snprintf(name, sizeof(name), "%.16s", a->cfg.name);
		snprintf(dir, sizeof(dir), "%s/" POLICY_SUBDIR, s.pd.path);
		json_object_object_add(res, "policy", json_object_new_string(a->policy->name));
		json_object_object_add(res, "source", json_object_new_string(
				       a->policy->from_file ? "file" : "bundled"));
		json_object_object_add(res, "name", json_object_new_string(name));
		if (a->policy->has_default_prio)
			json_object_object_add(res, "default_prio",
					       json_object_new_int64(a->cfg.default_prio));
		if (a->policy->scoping)
			json_object_object_add(res, "scoped", json_object_new_boolean(
					       a->cfg.flags & OOMCTL_CFG_SCOPED));
		if (a->policy->has_max_pause)
			json_object_object_add(res, "max_pause_s", a->cfg.max_pause_s ?
					       json_object_new_int64(a->cfg.max_pause_s) : NULL);
		json_object_object_add(res, "last_policy_name",
				       a->state.last_victim.seq ?
				       jstring_or_null(a->state.last_victim.policy_name) : NULL);
		json_object_object_add(res, "pin_dir", json_object_new_string(dir));
		json_object_object_add(res, "counters", counters(&a->state.stats));
		json_object_object_add(res, "recent_failures",
				       recent_failures(&a->state.failwin, warnings));
		if (a->state.stats.overruns) {
			char msg[256];

			snprintf(msg, sizeof(msg), "the policy ran past the kernel's time "
				 "budget (vm.oom_bpf_budget_ms) in %llu OOM%s: the "
				 "kernel heuristic chose instead",
				 (unsigned long long)a->state.stats.overruns,
				 a->state.stats.overruns == 1 ? "" : "s");
			json_object_array_add(warnings, json_object_new_string(msg));
		}
		json_object_object_add(res, "last_victim", victim(&a->state.last_victim));
		json_object_object_add(res, "links", pinned(&s.pd, pins, npins, true));
		json_object_object_add(res, "maps", pinned(&s.pd, pins, npins, false));
		/* Its entries, if its map opens; status shows what it can. */
		if (a->policy->map && (fd = session_fd(&s, PIN_MAP, a->policy->map)) >= 0)
			json_object_object_add(res, a->policy->entries,
					       policy_entries(a->policy, fd));
	}
	err = foreign(&hooks, pins, npins, &fl);
	if (err) {
		json_object_put(res);
		goto out;
	}
	json_object_object_add(res, "warnings", warnings);
	warnings = NULL;
	json_object_object_add(res, "foreign", fl);
	print_result(res, status_text, a->present ? a->policy : NULL);
	json_object_put(res);
out:
	json_object_put(warnings);
	free(pins);
	session_close(&s);
	return err;
}

static void list_text(struct json_object *a, const void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *att = jget(o, "attached");

		printf("%-10s %-9s %s\n", jstr(o, "name"),
		       !att ? "(unknown)" : json_object_get_boolean(att) ? "attached" : "",
		       jstr(o, "summary"));
	}
}

/* attach's options for @p, beyond --name and --replace. */
static struct json_object *options_json(const struct policy *p)
{
	struct json_object *a = json_object_new_array();
	const char *opt[4];
	size_t n = policy_attach_options(p, opt);

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(opt[i]));
	return a;
}

/*
 * Which policy is attached needs bpf() on the pins; without the privilege
 * list still lists, with "attached": null.
 */
int do_list(int argc, char **argv)
{
	struct session s = SESSION_INIT("list");
	const struct attached *a = &s.a;
	struct json_object *res;
	bool known = false;
	int first, err;

	err = parse_cmd_opts("list", argc, argv, NULL, NULL, NULL, NULL, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first < argc)
		return usage_err("list", "unexpected argument '%s'", argv[first]);
	if (geteuid() == 0) {
		/* Quietly: a missing bpffs only means nothing is attached. */
		quiet_errors = true;
		known = !session_open(&s, 0);
		session_close(&s);
		quiet_errors = false;
	}
	res = json_object_new_array();
	for (size_t i = 0; i < nr_policies; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(policies[i].name));
		json_object_object_add(o, "summary", json_object_new_string(policies[i].summary));
		json_object_object_add(o, "attached", known ?
			json_object_new_boolean(a->present && a->policy == &policies[i]) : NULL);
		json_object_object_add(o, "source", json_object_new_string("bundled"));
		json_object_object_add(o, "options", options_json(&policies[i]));
		json_object_array_add(res, o);
	}
	/* A policy attached from a file is listed too, after the bundled. */
	if (a->present && a->policy->from_file) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(a->policy->name));
		json_object_object_add(o, "summary", json_object_new_string(a->policy->summary));
		json_object_object_add(o, "attached", json_object_new_boolean(true));
		json_object_object_add(o, "source", json_object_new_string("file"));
		json_object_object_add(o, "options", options_json(a->policy));
		json_object_array_add(res, o);
	}
	print_result(res, list_text, NULL);
	json_object_put(res);
	return 0;
}
