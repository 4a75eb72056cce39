// SPDX-License-Identifier: GPL-2.0
/*
 * entry.c - a policy's entries, edited and listed by the kind of entries
 * its description declares (OOMCTL_POLICY(): a value per cgroup, a set of
 * cgroups, a set of processes), in its own words: oomctl entry
 * add|del|get for the attached policy, bundled or from a file. set-prio,
 * add-pid, set-slice and the others are the same with a bundled policy's
 * name (the alias table below).
 *
 * Every argument is checked, and every cgroup resolved, before the map is
 * touched, and a failure undoes what the command had changed: a bad
 * argument changes nothing.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "oomctl.h"

enum entry_op { OP_ADD, OP_DEL, OP_GET };

/* One run: the command as the user typed it, and for whom. */
struct entry_run {
	const char *cmd;		/* "set-prio", "entry" */
	enum entry_op op;
	bool list_only;			/* get-pids, get-slices: no KEY */
	const char *empty_note;		/* said of an empty list */
	const struct policy *p;		/* whose words and entries */
};

/* The commands that name a bundled policy's entries. */
static const struct entry_alias {
	const char *cmd, *policy;
	enum entry_op op;
	bool list_only;
	const char *empty_note;
} aliases[] = {
	{ "set-prio", "cgprio", OP_ADD, false, NULL },
	{ "unset-prio", "cgprio", OP_DEL, false, NULL },
	{ "get-prio", "cgprio", OP_GET, false, NULL },
	{ "add-pid", "pid", OP_ADD, false, NULL },
	{ "del-pid", "pid", OP_DEL, false, NULL },
	{ "get-pids", "pid", OP_GET, true, NULL },
	{ "set-slice", "rss-slice", OP_ADD, false, NULL },
	{ "unset-slice", "rss-slice", OP_DEL, false, NULL },
	{ "get-slices", "rss-slice", OP_GET, true,
	  "the kernel heuristic decides every OOM" },
};

/* The policy's word in capitals, for usage messages: PRIO. */
static const char *upper(const char *s, char *buf, size_t sz)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < sz; i++)
		buf[i] = toupper((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

/* "X is not a slice", or "X is not in the scope" where the key is not the
 * word's plural.
 */
static void not_in(const struct entry_run *r, const char *what)
{
	const struct oomctl_policy_desc *d = &r->p->desc;
	size_t n = strlen(d->entry);

	if (!strncmp(d->entries, d->entry, n) && !strcmp(d->entries + n, "s"))
		p_err("%s: %s is not a %s", r->cmd, what,
		      r->p->kind == OOMCTL_ENTRIES_PID_SET ? "target" : d->entry);
	else
		p_err("%s: %s is not in the %s", r->cmd, what, d->entries);
}

/*
 * The attached policy's map, which must be @r->p's, in the session (opened
 * here for set-prio and the others, by do_entry() for entry): the fd, or
 * -errno after one line.
 */
static int entry_map(const struct entry_run *r, struct session *s)
{
	int err = session_open(s, 0);

	return err ? err : session_policy_map(s, r->p);
}

/* A cgroup entry's object: cgroup, path, cgroup_id, and the value under the
 * policy's word for a value.
 */
static struct json_object *cgroup_json(const struct entry_run *r,
				       const struct cgroup_ref *cg, __u32 value)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cgroup", json_object_new_string(cg->cgpath));
	json_object_object_add(o, "path", json_object_new_string(cg->path));
	json_object_object_add(o, "cgroup_id", json_object_new_int64(cg->id));
	if (r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE)
		json_object_object_add(o, r->p->desc.entry, json_object_new_int64(value));
	return o;
}

static struct json_object *pid_json(__u32 pid)
{
	struct json_object *o = json_object_new_object();
	char comm[16] = "";

	json_object_object_add(o, "pid", json_object_new_int64(pid));
	json_object_object_add(o, "comm", proc_tgid(pid, comm) ?
			       json_object_new_string(comm) : NULL);
	return o;
}

/*
 * @p's entries (policy_entries()), one a line in its words: for entry get
 * and the get-* commands, or with @title for status, in its column (the
 * title on the first line; "none" when empty). The one place that says how
 * an entry reads. Status writes a process narrower, as it always has.
 */
void entries_text(const struct policy *p, struct json_object *a, const char *title,
		  const char *empty_note)
{
	size_t n = json_object_array_length(a);

	if (!n && title)
		printf("%-14snone\n", title);
	else if (!n && p->kind != OOMCTL_ENTRIES_CGROUP_VALUE &&
		 p->kind != OOMCTL_ENTRIES_PID_SET)
		printf("no %s%s%s\n", p->desc.entries, empty_note ? ": " : "",
		       empty_note ? empty_note : "");
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		const char *path = jget(o, "path") ? jstr(o, "path") : "(removed cgroup)";

		if (title)
			printf("%-14s", i ? "" : title);
		if (p->kind == OOMCTL_ENTRIES_CGROUP_VALUE)
			printf("%5lld  %s\n", jint(o, p->desc.entry), path);
		else if (p->kind == OOMCTL_ENTRIES_PID_SET)
			printf(title ? "%lld %s\n" : "%7lld  %s\n", jint(o, "pid"),
			       jget(o, "comm") ? jstr(o, "comm") : "(exited)");
		else
			printf("%s\n", path);
	}
}

/* The text printers, in the policy's words; @ctx is the run's entry_run. */
static void value_text(struct json_object *o, const void *ctx)
{
	const struct entry_run *r = ctx;

	printf("%s: %s %lld%s\n", jstr(o, "path"), r->p->desc.entry,
	       jint(o, r->p->desc.entry),
	       json_object_object_get_ex(o, "removed", NULL) ? " removed" : "");
}

static void value_get_text(struct json_object *o, const void *ctx)
{
	const struct entry_run *r = ctx;

	printf("%lld\n", jint(o, r->p->desc.entry));
}

static void list_text(struct json_object *a, const void *ctx)
{
	const struct entry_run *r = ctx;

	entries_text(r->p, a, NULL, r->empty_note);
}

static void changed_text(struct json_object *a, const void *ctx)
{
	const struct entry_run *r = ctx;
	bool add = r->op == OP_ADD;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);

		if (r->p->kind == OOMCTL_ENTRIES_PID_SET && add)
			printf("added %lld (%s)\n", jint(o, "pid"), jstr(o, "comm"));
		else if (r->p->kind == OOMCTL_ENTRIES_PID_SET)
			printf("removed %lld\n", jint(o, "pid"));
		else
			printf("%s: %s the %s\n", jstr(o, "path"),
			       add ? "in" : "removed from", r->p->desc.entries);
	}
}

static void member_text(struct json_object *o, const void *ctx)
{
	(void)ctx;
	printf("%s\n", json_object_get_boolean(jget(o, "member")) ? "yes" : "no");
}

/*
 * The entry a policy applies to @cg: its own, else its nearest ancestor's
 * (the policies look up to OOMCTL_MAX_DEPTH levels up, unless their entries
 * are exact), else none (for a value, the default). "source": own, inherited (with "from") or
 * default/none.
 */
static struct json_object *effective(const struct entry_run *r, int fd,
				     const struct cgroup_ref *cg, __u32 default_value)
{
	bool value = r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE;
	struct json_object *o = cgroup_json(r, cg, default_value);
	const char *mnt = cgroup2_mount();
	char dir[PATH_MAX];
	__u32 v;

	snprintf(dir, sizeof(dir), "%s", cg->path);
	/* A policy whose entries are the cgroup's own looks no further up. */
	for (int i = 0; i < (r->p->desc.flags & OOMCTL_DESC_EXACT ? 1 : OOMCTL_MAX_DEPTH); i++) {
		__u64 id;

		if (!cgroup_id_of(dir, &id) && !bpf_map_lookup_elem(fd, &id, &v)) {
			if (value)
				json_object_object_add(o, r->p->desc.entry,
						       json_object_new_int64(v));
			else
				json_object_object_add(o, "member", json_object_new_boolean(1));
			json_object_object_add(o, "source", json_object_new_string(
					       i ? "inherited" : "own"));
			if (i)
				json_object_object_add(o, "from", json_object_new_string(dir));
			return o;
		}
		if (!mnt || !strcmp(dir, mnt) || !strrchr(dir, '/') || dir == strrchr(dir, '/'))
			break;
		*strrchr(dir, '/') = 0;		/* the parent directory */
	}
	if (!value)
		json_object_object_add(o, "member", json_object_new_boolean(0));
	json_object_object_add(o, "source", json_object_new_string(value ? "default" : "none"));
	return o;
}

/* The arguments, checked before anything is touched. */
struct entry_args {
	size_t n;
	struct cgroup_ref *cgs;		/* cgroup kinds: n of them */
	__u32 *pids;			/* pid sets: n of them */
	__u32 value;			/* a value's add */
};

static int parse_args(const struct entry_run *r, int argc, char **argv, int first,
		      struct entry_args *a)
{
	const struct oomctl_policy_desc *d = &r->p->desc;
	bool cgroups = r->p->kind != OOMCTL_ENTRIES_PID_SET;
	int min = r->op == OP_GET ? 0 : 1, max = -1;
	char word[32];

	if (r->op == OP_GET)
		max = r->list_only ? 0 : 1;
	else if (r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE)
		min = max = r->op == OP_ADD ? 2 : 1;
	if (argc - first < min)
		return usage_err(r->cmd, "missing argument");
	if (max >= 0 && argc - first > max)
		return usage_err(r->cmd, "unexpected argument '%s'", argv[first + max]);
	a->n = r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE ? (argc > first) : argc - first;
	if (r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE && r->op == OP_ADD) {
		unsigned long v;
		int err = parse_uint(argv[first + 1], d->value_min, d->value_max, &v);

		if (err)
			return usage_err(r->cmd, "%s '%s' is %s, want %u..%u",
					 upper(d->entry, word, sizeof(word)), argv[first + 1],
					 err == -ERANGE ? "out of range" : "not a decimal integer",
					 d->value_min, d->value_max);
		a->value = v;
	}
	if (!a->n)
		return 0;
	if (cgroups)
		a->cgs = calloc(a->n, sizeof(*a->cgs));
	else
		a->pids = calloc(a->n, sizeof(*a->pids));
	if (!a->cgs && !a->pids) {
		p_err("%s: out of memory", r->cmd);
		return -ENOMEM;
	}
	for (size_t i = 0; !cgroups && i < a->n; i++) {
		unsigned long v;
		int err = parse_uint(argv[first + i], 1, PID_MAX_LIMIT, &v);

		if (err)
			return usage_err(r->cmd, "PID '%s' is %s, want 1..%d", argv[first + i],
					 err == -ERANGE ? "out of range" :
					 "not a decimal integer", PID_MAX_LIMIT);
		a->pids[i] = v;
	}
	return 0;
}

/* The processes to add exist and are processes, not threads. */
static int check_pids(const struct entry_run *r, int fd, const struct entry_args *a)
{
	__u32 v;

	for (size_t i = 0; i < a->n; i++) {
		__u32 pid = a->pids[i], tgid = r->op == OP_ADD ? proc_tgid(pid, NULL) : 0;

		if (r->op == OP_ADD && !tgid) {
			p_err("%s: no process %u", r->cmd, pid);
			return -ESRCH;
		}
		if (r->op == OP_ADD && tgid != pid) {
			p_err("%s: %u is a thread of process %u; give the process id",
			      r->cmd, pid, tgid);
			return -EINVAL;
		}
		if (r->op == OP_DEL && bpf_map_lookup_elem(fd, &pid, &v)) {
			char what[16];

			snprintf(what, sizeof(what), "%u", pid);
			not_in(r, what);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * Add or remove every key of @a, all or none: on a failure what was done
 * is undone. The result (one object per key) in *@res.
 */
static int change(const struct entry_run *r, int fd, const struct entry_args *a,
		  struct json_object **res)
{
	bool pids = r->p->kind == OOMCTL_ENTRIES_PID_SET;
	bool value = r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE;
	struct map_entry *e = calloc(a->n, sizeof(*e));
	__u32 *old = calloc(a->n, sizeof(*old));
	int err = -ENOMEM;

	if (!e || !old) {
		p_err("%s: out of memory", r->cmd);
		goto out;
	}
	for (size_t i = 0; i < a->n; i++)
		e[i] = (struct map_entry){ .cg = pids ? NULL : &a->cgs[i],
					   .pid = pids ? a->pids[i] : 0,
					   .value = value ? a->value : 1 };
	if (r->op == OP_ADD) {
		err = entries_add(fd, e, a->n);
		if (err) {
			if (value)
				p_err("%s: cannot set %s's %s: %s%s", r->cmd, a->cgs[0].path,
				      r->p->desc.entry, strerror(-err),
				      err == -E2BIG ? " (the map is full)" : "");
			else if (pids)
				p_err("%s: %u: %s%s", r->cmd, a->pids[0], strerror(-err),
				      err == -E2BIG ? " (the map is full)" : "");
			else
				p_err("%s: cannot add the %s: %s%s", r->cmd, r->p->desc.entries,
				      strerror(-err), err == -E2BIG ? " (the map is full)" : "");
			goto out;
		}
		/* A cgroup removed meanwhile would linger: look again. */
		err = entries_recheck(r->cmd, fd, e, a->n);
		if (err)
			goto out;
	} else {
		for (size_t i = 0; i < a->n; i++) {
			if (!bpf_map_lookup_elem(fd, entry_key(&e[i]), &old[i]))
				continue;
			if (value)
				p_err("%s: %s has no %s of its own", r->cmd, a->cgs[i].path,
				      r->p->desc.entry);
			else
				not_in(r, a->cgs[i].path);
			err = -ENOENT;
			goto out;
		}
		for (size_t i = 0; i < a->n; i++) {
			if (!bpf_map_delete_elem(fd, entry_key(&e[i])) || errno == ENOENT)
				continue;
			err = -errno;
			if (pids)
				p_err("%s: %u: %s", r->cmd, a->pids[i], strerror(-err));
			else
				p_err("%s: %s: %s", r->cmd, a->cgs[i].path, strerror(-err));
			for (size_t j = 0; j < i; j++)	/* undo */
				bpf_map_update_elem(fd, entry_key(&e[j]), &old[j], BPF_ANY);
			goto out;
		}
	}
	if (value) {
		*res = cgroup_json(r, &a->cgs[0], r->op == OP_ADD ? a->value : old[0]);
		if (r->op == OP_DEL)
			json_object_object_add(*res, "removed", json_object_new_boolean(1));
	} else {
		*res = json_object_new_array();
		for (size_t i = 0; i < a->n; i++)
			json_object_array_add(*res, pids ? pid_json(a->pids[i]) :
					      cgroup_json(r, &a->cgs[i], 1));
	}
	err = 0;
out:
	free(old);
	free(e);
	return err;
}

/* A pid set's answer to "get PID": whether it is listed. */
static struct json_object *pid_member(int fd, __u32 pid)
{
	struct json_object *o = pid_json(pid);
	__u32 v;

	json_object_object_add(o, "member", json_object_new_boolean(
			       !bpf_map_lookup_elem(fd, &pid, &v)));
	return o;
}

static int run(struct entry_run *r, struct session *s, int argc, char **argv,
	       int first)
{
	struct entry_args a = {};
	struct json_object *res = NULL;
	int fd, err;

	err = parse_args(r, argc, argv, first, &a);
	if (err)
		goto out;
	err = need_caps(r->cmd, NEED_BPF);
	for (size_t i = 0; !err && a.cgs && i < a.n; i++)
		err = cgroup_resolve(argv[first + i], &a.cgs[i]);
	if (err)
		goto out;
	fd = err = entry_map(r, s);
	if (err < 0)
		goto out;
	err = 0;
	if (r->op == OP_ADD && r->p->scoping && !(s->a.cfg.flags & OOMCTL_CFG_SCOPED)) {
		p_err("%s: %s was attached without a scope: it acts on every memcg OOM; "
		      "give its cgroups when attaching (--%s) or in oomctl.conf(5)",
		      r->cmd, r->p->name, r->p->desc.entry);
		err = -EINVAL;
		goto out;
	}
	if (r->op == OP_GET && !a.n) {
		res = policy_entries(r->p, fd);
		print_result(res, list_text, r);
	} else if (r->op == OP_GET) {
		res = a.pids ? pid_member(fd, a.pids[0]) :
		      effective(r, fd, &a.cgs[0], s->a.cfg.default_prio);
		print_result(res, r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE ?
			     value_get_text : member_text, r);
	} else {
		if ((a.pids && (err = check_pids(r, fd, &a))) ||
		    (err = change(r, fd, &a, &res)))
			goto out;
		print_result(res, r->p->kind == OOMCTL_ENTRIES_CGROUP_VALUE ?
			     value_text : changed_text, r);
	}
out:
	json_object_put(res);
	free(a.cgs);
	free(a.pids);
	return err;
}

/* set-prio, add-pid, ...: the entries of the bundled policy they name. */
int do_entry_alias(int argc, char **argv)
{
	const struct entry_alias *al = NULL;
	struct entry_run r;
	struct session s;
	int first, err;

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]) && !al; i++)
		if (!strcmp(argv[0], aliases[i].cmd))
			al = &aliases[i];
	if (!al)
		return usage_err(argv[0], "unknown command");
	r = (struct entry_run){ .cmd = al->cmd, .op = al->op,
				.list_only = al->list_only, .empty_note = al->empty_note,
				.p = policy_by_name(al->policy) };
	if (!r.p) {
		p_err("%s: oomctl was built without policy %s", al->cmd, al->policy);
		return -ENOENT;
	}
	err = parse_cmd_opts(al->cmd, argc, argv, NULL, NULL, NULL, NULL, &first);
	if (err)
		return err < 0 ? err : 0;
	s = (struct session)SESSION_INIT(al->cmd);
	err = run(&r, &s, argc, argv, first);
	session_close(&s);
	return err;
}

/* oomctl entry add|del|get ...: the attached policy's, by its kind. */
int do_entry(int argc, char **argv)
{
	static const char *const ops[] = { [OP_ADD] = "add", [OP_DEL] = "del",
					   [OP_GET] = "get" };
	struct entry_run r = { .cmd = "entry" };
	struct session s = SESSION_INIT("entry");
	int first, err;
	size_t op;

	err = parse_cmd_opts("entry", argc, argv, NULL, NULL, NULL, NULL, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first >= argc)
		return usage_err("entry", "add, del or get?");
	for (op = 0; op < 3 && strcmp(argv[first], ops[op]); op++)
		;
	if (op == 3)
		return usage_err("entry", "unknown action '%s' (add, del or get)", argv[first]);
	r.op = op;
	if ((err = need_caps("entry", NEED_BPF)) ||
	    (err = session_open(&s, SESSION_POLICY)))
		goto out;
	if (!s.a.policy->kind) {
		p_err("entry: policy %s keeps no entries", s.a.policy->name);
		err = -ENOENT;
		goto out;
	}
	/* The policy's words and entries, and run() uses the same session. */
	r.p = s.a.policy;
	err = run(&r, &s, argc, argv, first + 1);
out:
	session_close(&s);
	return err;
}
