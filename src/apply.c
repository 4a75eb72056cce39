// SPDX-License-Identifier: GPL-2.0
/*
 * apply.c - oomctl apply FILE: make the attached policy, its options and
 * its map's entries exactly those of a config file (oomctl.conf(5)).
 *
 * Three steps, so that a bad file changes nothing: read and check every
 * line; resolve every cgroup and pid; then compare with what is attached
 * and change only the difference. A new policy, name, default-prio or
 * abort-all scope re-attaches (attach --replace: the new map is filled
 * before the new policy goes live, with no gap); entries alone are edited
 * in place, and undone if an edit fails. The pin directory stays locked
 * from the comparison to the last change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

#define MAX_WORDS 4	/* a directive and its arguments, plus one too many */

static const struct directive {
	const char *name;
	const char *args;	/* its arguments, for messages */
	int nargs;
	/* The policies it applies to (with @name); NULL: any. */
	bool (*applies)(const struct policy *p, const char *name);
	bool entry;		/* an entry of the policy's map: its word */
	enum oomctl_entry_kind kind;	/* the entries its arguments make */
} directives[] = {
	{ "policy", "POLICY", 1, NULL, false, OOMCTL_ENTRIES_NONE },
	{ "name", "NAME", 1, NULL, false, OOMCTL_ENTRIES_NONE },
	{ "default-prio", "PRIO", 1, policy_has_default, false, OOMCTL_ENTRIES_NONE },
	{ "prio", "CGROUP PRIO", 2, policy_has_entry, true, OOMCTL_ENTRIES_CGROUP_VALUE },
	{ "pid", "PID", 1, policy_has_entry, true, OOMCTL_ENTRIES_PID_SET },
	{ "slice", "CGROUP", 1, policy_has_entry, true, OOMCTL_ENTRIES_CGROUP_SET },
	{ "cgroup", "CGROUP", 1, policy_has_entry, true, OOMCTL_ENTRIES_CGROUP_SET },
	{ "max-pause", "SECONDS", 1, policy_has_max_pause, false, OOMCTL_ENTRIES_NONE },
};
#define NR_DIRECTIVES (sizeof(directives) / sizeof(directives[0]))

struct conf_line {
	int line;
	const struct directive *d;
	char *arg[2];
	bool skipped;		/* --skip-missing: its cgroup or pid is not there */
};

struct conf {
	const char *file;	/* for messages; "<stdin>" for - */
	bool from_stdin;
	struct conf_line *v;
	size_t n;
	const struct policy *p;	/* NULL: policy none */
	struct policy file_policy;	/* policy PATH.bpf.o */
	const struct conf_line *name, *default_prio, *max_pause;
	struct oomctl_config cfg;
	/* The entries (lines with d->entry), resolved; cgs[i] for v[i]. */
	struct cgroup_ref *cgs;
	struct map_entry *want;
	size_t nwant;
	struct json_object *skipped;
};

static int conf_err(const struct conf *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* One line naming FILE:LINE, a usage error as for a bad command line. */
static int conf_err(const struct conf *c, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		return usage_line("apply: %s:%d: %s", c->file, line, msg);
	return usage_line("apply: %s: %s", c->file, msg);
}

static const struct directive *find_directive(const char *name)
{
	for (size_t i = 0; i < NR_DIRECTIVES; i++)
		if (!strcmp(directives[i].name, name))
			return &directives[i];
	return NULL;
}

/* The directive of @p's map entries: prio, pid, slice or cgroup. */
static const char *entry_directive(const struct policy *p)
{
	return p->kind ? p->desc.entry : "entry";
}

/* Split @buf into blank-separated words up to a '#' word; their count. */
static int split(char *buf, char **w)
{
	int n = 0;

	for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		if (tok[0] == '#')
			break;
		if (n == MAX_WORDS)
			break;
		w[n++] = tok;
	}
	return n;
}

/* Read FILE ('-': stdin) into c->v: directive names and word counts checked. */
static int conf_read(struct conf *c)
{
	FILE *f = c->from_stdin ? stdin : fopen(c->file, "re");
	char *buf = NULL, *w[MAX_WORDS];
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!f) {
		rc = -errno;
		p_err("apply: cannot read %s: %s", c->file, strerror(-rc));
		return rc;
	}
	while (!rc && getline(&buf, &cap, f) >= 0) {
		const struct directive *d;
		struct conf_line *more;
		int n = split(buf, w);

		lineno++;
		if (!n)
			continue;
		d = find_directive(w[0]);
		if (!d) {
			rc = conf_err(c, lineno, "unknown directive '%s' (policy, name, "
				      "default-prio, prio, pid, slice, cgroup, max-pause)", w[0]);
			break;
		}
		if (n - 1 != d->nargs) {
			rc = conf_err(c, lineno, "'%s' takes %s", d->name, d->args);
			break;
		}
		more = realloc(c->v, (c->n + 1) * sizeof(*c->v));
		if (!more) {
			p_err("apply: out of memory");
			rc = -ENOMEM;
			break;
		}
		c->v = more;
		c->v[c->n] = (struct conf_line){ .line = lineno, .d = d };
		for (int i = 0; i < d->nargs; i++)
			c->v[c->n].arg[i] = strdup(w[i + 1]);
		c->n++;
	}
	if (!rc && ferror(f)) {
		rc = -errno;
		p_err("apply: cannot read %s: %s", c->file, strerror(-rc));
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	return rc;
}

static int conf_number(const struct conf *c, const struct conf_line *l,
		       const char *what, const char *s, unsigned long min,
		       unsigned long max, __u32 *out)
{
	unsigned long v;
	int err = parse_uint(s, min, max, &v);

	if (err)
		return conf_err(c, l->line, "%s '%s' is %s, want %lu..%lu", what, s,
				err == -ERANGE ? "out of range" : "not a decimal integer",
				min, max);
	*out = v;
	return 0;
}

/* A second line of a once-only directive. */
static int once(const struct conf *c, const struct conf_line **first,
		const struct conf_line *l)
{
	if (*first)
		return conf_err(c, l->line, "a second '%s' line (the first is line %d)",
				l->d->name, (*first)->line);
	*first = l;
	return 0;
}

/* Every line checked against the file's policy; values parsed. */
static int conf_check(struct conf *c)
{
	const struct conf_line *policy = NULL;
	int rc;

	for (size_t i = 0; i < c->n; i++) {
		struct conf_line *l = &c->v[i];

		if (strcmp(l->d->name, "policy"))
			continue;
		if ((rc = once(c, &policy, l)))
			return rc;
		if (is_policy_path(l->arg[0])) {
			/* Read and checked now; loaded if the plan attaches it. */
			if ((rc = policy_from_file("apply", l->arg[0], &c->file_policy)))
				return rc;
			c->p = &c->file_policy;
			continue;
		}
		c->p = policy_by_name(l->arg[0]);
		if (!c->p && strcmp(l->arg[0], "none"))
			return conf_err(c, l->line, "unknown policy '%s' (%s, or none; "
					"or a policy object's path, with a '/')", l->arg[0],
					policy_names());
	}
	if (!policy)
		return conf_err(c, 0, "no 'policy' line (policy %s, or none)",
				policy_names());
	c->cfg = (struct oomctl_config){
		.abi_version = OOMCTL_ABI_VERSION,
		.max_pause_s = c->p && c->p->has_max_pause ? OOMCTL_MAX_PAUSE_DEFAULT_S : 0,
	};
	for (size_t i = 0; i < c->n; i++) {
		struct conf_line *l = &c->v[i];
		__u32 v;

		if (l == policy)
			continue;
		if (!c->p)
			return conf_err(c, l->line, "'%s' with policy none (which "
					"detaches; nothing else may be set)", l->d->name);
		if (l->d->applies && (!l->d->applies(c->p, l->d->name) ||
				      (l->d->entry && c->p->kind != l->d->kind)))
			return conf_err(c, l->line, "'%s' applies to %s only, not to "
					"policy %s", l->d->name,
					policies_with(l->d->applies, l->d->name), c->p->name);
		if (!strcmp(l->d->name, "name")) {
			if ((rc = once(c, &c->name, l)))
				return rc;
			if (strlen(l->arg[0]) >= OOMCTL_NAME_LEN)
				return conf_err(c, l->line, "name '%s' is %zu bytes long; "
						"at most %d", l->arg[0], strlen(l->arg[0]),
						OOMCTL_NAME_LEN - 1);
		} else if (!strcmp(l->d->name, "default-prio")) {
			if ((rc = once(c, &c->default_prio, l)) ||
			    (rc = conf_number(c, l, "PRIO", l->arg[0], c->p->desc.value_min,
					      c->p->desc.value_max, &c->cfg.default_prio)))
				return rc;
		} else if (!strcmp(l->d->name, "max-pause")) {
			if ((rc = once(c, &c->max_pause, l)))
				return rc;
			rc = parse_max_pause(l->arg[0], &c->cfg.max_pause_s);
			if (rc)
				return conf_err(c, l->line, "max-pause '%s' is %s, want %s",
						l->arg[0], rc == -ERANGE ? "out of range" :
						"not a number", MAX_PAUSE_WANT);
		} else if (!strcmp(l->d->name, "prio")) {
			if ((rc = conf_number(c, l, "PRIO", l->arg[1], c->p->desc.value_min,
					      c->p->desc.value_max, &v)))
				return rc;
		} else if (!strcmp(l->d->name, "pid")) {
			if ((rc = conf_number(c, l, "PID", l->arg[0], 1, PID_MAX_LIMIT, &v)))
				return rc;
		}
		/* abort-all is scoped by its cgroup lines, even skipped ones:
		 * a scope whose cgroups are missing must abort nothing, not
		 * every memcg OOM.
		 */
		if (!strcmp(l->d->name, "cgroup") && c->p->scoping)
			c->cfg.flags |= OOMCTL_CFG_SCOPED;
	}
	if (c->p) {
		c->cfg.desc = c->p->desc;
		c->cfg.source = c->p->from_file ? OOMCTL_SOURCE_FILE : OOMCTL_SOURCE_BUNDLED;
		snprintf(c->cfg.name, sizeof(c->cfg.name), "%s",
			 c->name ? c->name->arg[0] : c->p->name);
	}
	return 0;
}

static void skip(struct conf *c, struct conf_line *l, const char *reason)
{
	struct json_object *o = json_object_new_object();

	l->skipped = true;
	json_object_object_add(o, "line", json_object_new_int(l->line));
	json_object_object_add(o, "directive", json_object_new_string(l->d->name));
	json_object_object_add(o, "arg", json_object_new_string(l->arg[0]));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_array_add(c->skipped, o);
}

/*
 * Resolve the entries' cgroups and pids into c->want. A missing one, or a
 * thread's id, is an error (1), or a missing one with @skip_missing a
 * skipped line; two lines naming the same cgroup or process are a file
 * error (2).
 */
static int conf_resolve(struct conf *c, bool skip_missing)
{
	char why[256];

	c->cgs = calloc(c->n ? c->n : 1, sizeof(*c->cgs));
	c->want = calloc(c->n ? c->n : 1, sizeof(*c->want));
	if (!c->cgs || !c->want) {
		p_err("apply: out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct conf_line *l = &c->v[i];
		struct map_entry e = { .value = 1 };
		int err;

		if (!l->d->entry)
			continue;
		if (!strcmp(l->d->name, "pid")) {
			__u32 tgid;

			e.pid = strtoul(l->arg[0], NULL, 10);
			tgid = proc_tgid(e.pid, NULL);
			if (!tgid && skip_missing) {
				skip(c, l, "no such process");
				continue;
			}
			if (!tgid) {
				p_err("apply: %s:%d: no process %u", c->file, l->line, e.pid);
				return -ESRCH;
			}
			if (tgid != e.pid) {
				p_err("apply: %s:%d: %u is a thread of process %u; give the "
				      "process id", c->file, l->line, e.pid, tgid);
				return -EINVAL;
			}
		} else {
			err = cgroup_lookup(l->arg[0], &c->cgs[i], why, sizeof(why));
			if (err == -ENOENT && skip_missing) {
				skip(c, l, "no such cgroup");
				continue;
			}
			if (err) {
				p_err("apply: %s:%d: cgroup '%s': %s", c->file, l->line,
				      l->arg[0], why);
				return err;
			}
			e.cg = &c->cgs[i];
			if (l->arg[1])
				e.value = strtoul(l->arg[1], NULL, 10);
		}
		for (size_t j = 0; j < c->nwant; j++) {
			const struct map_entry *o = &c->want[j];

			if (e.cg ? o->cg && o->cg->id == e.cg->id : o->pid == e.pid)
				return conf_err(c, l->line, "%s %s is already on an "
						"earlier line", l->d->name,
						e.cg ? e.cg->path : l->arg[0]);
		}
		c->want[c->nwant++] = e;
	}
	return 0;
}

/* One planned edit of the attached map, and what it was before. */
struct edit {
	enum { ADD, CHANGE, REMOVE } op;
	__u64 cgid;		/* the key: a cgroup id, or */
	__u32 pid;		/* a pid (pid policy) */
	__u32 value, was;
	const char *path;	/* the cgroup's; NULL if gone or a pid */
};

struct plan {
	bool detach, reattach;
	struct edit *edits;
	size_t nedits;
	struct json_object *changes;
};

static const char *const op_names[] = { "add", "change", "remove" };
static const char op_marks[] = { '+', '~', '-' };

static struct json_object *change_obj(int op, const char *directive)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string(op_names[op]));
	json_object_object_add(o, "directive", json_object_new_string(directive));
	return o;
}

/* A max-pause as the plan shows it: seconds, or the string "infinity". */
static struct json_object *max_pause_json(__u32 s)
{
	return s ? json_object_new_int64(s) : json_object_new_string("infinity");
}

/* A change of policy, name, default-prio or max-pause (strings or numbers). */
static void plan_setting(struct plan *pl, int op, const char *directive,
			 struct json_object *value, struct json_object *was)
{
	struct json_object *o = change_obj(op, directive);

	json_object_object_add(o, "value", value);
	json_object_object_add(o, "was", was);
	json_object_array_add(pl->changes, o);
}

static const void *edit_key(const struct edit *e, bool by_pid)
{
	return by_pid ? (const void *)&e->pid : (const void *)&e->cgid;
}

static int plan_edit(struct plan *pl, const struct edit *e, const char *directive,
		     struct cgroup_map *cm)
{
	struct json_object *o = change_obj(e->op, directive);
	bool prio = !strcmp(directive, "prio"), by_pid = !strcmp(directive, "pid");
	struct edit *more = realloc(pl->edits, (pl->nedits + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	pl->edits = more;
	pl->edits[pl->nedits++] = *e;
	json_object_object_add(o, "value", prio && e->op != REMOVE ?
			       json_object_new_int64(e->value) : NULL);
	json_object_object_add(o, "was", prio && e->op != ADD ?
			       json_object_new_int64(e->was) : NULL);
	if (by_pid) {
		json_object_object_add(o, "pid", json_object_new_int64(e->pid));
	} else {
		const char *cgpath = cgroup_map_path(cm, e->cgid, true);

		json_object_object_add(o, "cgroup", cgpath ? json_object_new_string(cgpath) : NULL);
		json_object_object_add(o, "path", e->path ? json_object_new_string(e->path) : NULL);
		json_object_object_add(o, "cgroup_id", json_object_new_int64(e->cgid));
	}
	json_object_array_add(pl->changes, o);
	return 0;
}

/*
 * The map edits from @fd's entries (-1: none, a new map) to c->want:
 * additions and changes in file order, then removals.
 */
static int plan_entries(const struct conf *c, struct plan *pl, int fd)
{
	const char *directive = entry_directive(c->p);
	bool by_pid = c->p->kind == OOMCTL_ENTRIES_PID_SET;
	struct cgroup_map *cm = cgroup_map_build();
	__u64 key = 0, next = 0;
	void *prev = NULL;
	int err = 0;
	__u32 v;

	for (size_t i = 0; i < c->nwant && !err; i++) {
		const struct map_entry *w = &c->want[i];
		struct edit e = { .op = ADD, .value = w->value, .pid = w->pid,
				  .cgid = w->cg ? w->cg->id : 0,
				  .path = w->cg ? w->cg->path : NULL };

		if (fd >= 0 && !bpf_map_lookup_elem(fd, entry_key(w), &v)) {
			if (v == w->value)
				continue;
			e.op = CHANGE;
			e.was = v;
		}
		err = plan_edit(pl, &e, directive, cm);
	}
	/* Keys of either size fit in @key; the map writes only its own size. */
	while (fd >= 0 && !err && !bpf_map_get_next_key(fd, prev, &next)) {
		struct edit e = { .op = REMOVE };
		bool wanted = false;

		key = next;
		prev = &key;
		if (by_pid)
			memcpy(&e.pid, &key, sizeof(e.pid));
		else
			e.cgid = key;
		for (size_t i = 0; i < c->nwant && !wanted; i++)
			wanted = by_pid ? c->want[i].pid == e.pid :
				 c->want[i].cg->id == e.cgid;
		if (wanted || bpf_map_lookup_elem(fd, edit_key(&e, by_pid), &e.was))
			continue;
		e.path = by_pid ? NULL : cgroup_map_path(cm, e.cgid, false);
		if (e.path)
			e.path = strdup(e.path);
		err = plan_edit(pl, &e, directive, cm);
	}
	cgroup_map_free(cm);
	return err;
}

/*
 * Is what @c wants what is attached? A policy object from a file always
 * counts as new: its code may have changed under the same description.
 */
static bool same_policy(const struct conf *c, const struct attached *a)
{
	return a->present && !c->p->from_file && !a->policy->from_file &&
	       policy_same(a->policy, c->p);
}

/* What to change, from what is attached (@a, its map @fd) to @c. */
static int make_plan(const struct conf *c, const struct attached *a, int fd,
		     struct plan *pl)
{
	const struct oomctl_config *old = &a->cfg, *want = &c->cfg;
	bool same;

	pl->changes = json_object_new_array();
	if (!c->p) {
		pl->detach = a->present;
		if (a->present)
			plan_setting(pl, REMOVE, "policy", NULL,
				     json_object_new_string(a->policy->name));
		return 0;
	}
	if (!a->present)
		plan_setting(pl, ADD, "policy", json_object_new_string(c->p->name), NULL);
	else if (!same_policy(c, a))
		plan_setting(pl, CHANGE, "policy", json_object_new_string(c->p->name),
			     json_object_new_string(a->policy->name));
	/*
	 * Name and default-prio: changes of the same policy, else the ones
	 * the file sets (a new policy's defaults go without saying).
	 */
	same = same_policy(c, a);
	if (same ? strcmp(old->name, want->name) : !!c->name)
		plan_setting(pl, same ? CHANGE : ADD, "name",
			     json_object_new_string(want->name),
			     same ? json_object_new_string(old->name) : NULL);
	if (c->p->has_default_prio &&
	    (same ? old->default_prio != want->default_prio : !!c->default_prio))
		plan_setting(pl, same ? CHANGE : ADD, "default-prio",
			     json_object_new_int64(want->default_prio),
			     same ? json_object_new_int64(old->default_prio) : NULL);
	if (c->p->has_max_pause &&
	    (same ? old->max_pause_s != want->max_pause_s : !!c->max_pause))
		plan_setting(pl, same ? CHANGE : ADD, "max-pause",
			     max_pause_json(want->max_pause_s),
			     same ? max_pause_json(old->max_pause_s) : NULL);
	pl->reattach = !same ||
		       strcmp(old->name, want->name) ||
		       (c->p->has_default_prio && old->default_prio != want->default_prio) ||
		       (c->p->has_max_pause && old->max_pause_s != want->max_pause_s) ||
		       (c->p->scoping && (old->flags ^ want->flags) & OOMCTL_CFG_SCOPED);
	/* A different policy's map goes with it: compare with an empty one. */
	return plan_entries(c, pl, same ? fd : -1);
}

/* Undo edits [0, n) in reverse; an entry of a removed cgroup stays away. */
static void undo_edits(const struct plan *pl, size_t n, int fd, bool by_pid)
{
	while (n--) {
		const struct edit *e = &pl->edits[n];

		if (e->op == ADD)
			bpf_map_delete_elem(fd, edit_key(e, by_pid));
		else if (by_pid || (e->path && cgroup_exists(e->cgid, e->path)))
			bpf_map_update_elem(fd, edit_key(e, by_pid), &e->was, BPF_ANY);
	}
}

static int edit_in_place(const struct plan *pl, int fd, bool by_pid)
{
	for (size_t i = 0; i < pl->nedits; i++) {
		const struct edit *e = &pl->edits[i];
		int err = e->op == REMOVE ?
			  bpf_map_delete_elem(fd, edit_key(e, by_pid)) :
			  bpf_map_update_elem(fd, edit_key(e, by_pid), &e->value, BPF_ANY);

		if (err && !(e->op == REMOVE && errno == ENOENT)) {
			err = -errno;
			p_err("apply: cannot %s %s: %s%s; nothing was changed",
			      op_names[e->op], by_pid ? "a pid" : e->path ? e->path :
			      "an entry", strerror(-err),
			      err == -E2BIG ? " (the map is full)" : "");
			undo_edits(pl, i, fd, by_pid);
			return err;
		}
	}
	/* A cgroup removed since it was resolved: its cgroup_rmdir program
	 * has run, and our update made a stale entry.
	 */
	for (size_t i = 0; !by_pid && i < pl->nedits; i++) {
		const struct edit *e = &pl->edits[i];

		if (e->op != REMOVE && !cgroup_exists(e->cgid, e->path)) {
			p_err("apply: cgroup %s was removed meanwhile; nothing was changed",
			      e->path);
			undo_edits(pl, pl->nedits, fd, by_pid);
			bpf_map_delete_elem(fd, &e->cgid);
			return -ENOENT;
		}
	}
	return 0;
}

static void apply_text(struct json_object *o, const void *ctx)
{
	struct json_object *a = jget(o, "changes");
	size_t n = json_object_array_length(a);

	(void)ctx;
	for (size_t i = 0; i < json_object_array_length(jget(o, "skipped")); i++) {
		struct json_object *s = json_object_array_get_idx(jget(o, "skipped"), i);

		printf("skipped %s:%lld: %s %s: %s\n", jstr(o, "file"), jint(s, "line"),
		       jstr(s, "directive"), jstr(s, "arg"), jstr(s, "reason"));
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		const char *op = jstr(c, "op"), *d = jstr(c, "directive");
		char mark = op_marks[!strcmp(op, "add") ? ADD :
				     !strcmp(op, "change") ? CHANGE : REMOVE];

		printf("%c %s", mark, d);
		if (jget(c, "pid"))
			printf(" %lld", jint(c, "pid"));
		else if (jget(c, "cgroup_id"))
			jget(c, "path") ? printf(" %s", jstr(c, "path")) :
					  printf(" (removed cgroup, id %lld)",
						 jint(c, "cgroup_id"));
		if (jget(c, "value"))
			printf(" %s", jstr(c, "value"));
		if (jget(c, "was") && !jget(c, "value") && !jget(c, "cgroup_id"))
			printf(" %s", jstr(c, "was"));	/* - policy X */
		else if (jget(c, "was"))
			printf(" (was %s)", jstr(c, "was"));
		printf("\n");
	}
	if (!n)
		printf("no changes\n");
	else if (json_object_get_boolean(jget(o, "dry_run")))
		printf("%zu change%s (dry run: nothing changed)\n", n, n == 1 ? "" : "s");
	else
		printf("%zu change%s applied\n", n, n == 1 ? "" : "s");
}

struct apply_args {
	bool dry_run, skip_missing;
};

enum { OPT_DRY_RUN = 0x300, OPT_SKIP_MISSING };

static int apply_opt(int c, const char *arg, void *ctx)
{
	struct apply_args *a = ctx;

	(void)arg;
	if (c == OPT_DRY_RUN)
		a->dry_run = true;
	else if (c == OPT_SKIP_MISSING)
		a->skip_missing = true;
	else
		return usage_err("apply", "unknown option");
	return 0;
}

static void conf_free(struct conf *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].arg[0]), free(c->v[i].arg[1]);
	free(c->v);
	free(c->cgs);
	free(c->want);
	json_object_put(c->skipped);
	policy_free(&c->file_policy);
}

static void plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->nedits; i++)
		if (pl->edits[i].op == REMOVE)
			free((char *)pl->edits[i].path);
	free(pl->edits);
	json_object_put(pl->changes);
}

int do_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "skip-missing", no_argument, NULL, OPT_SKIP_MISSING },
		{ 0 }
	};
	struct apply_args args = {};
	struct conf c = {};
	struct plan pl = {};
	struct session s = SESSION_INIT("apply");
	const struct attached *a = &s.a;
	struct json_object *res, *sub = NULL;
	int first, fd = -1, err;

	err = parse_cmd_opts("apply", argc, argv, opts, NULL, apply_opt, &args, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first >= argc)
		return usage_err("apply", "which file? (oomctl.conf(5); - for stdin)");
	if (argc - first > 1)
		return usage_err("apply", "unexpected argument '%s'", argv[first + 1]);
	c.from_stdin = !strcmp(argv[first], "-");
	c.file = c.from_stdin ? "<stdin>" : argv[first];
	c.skipped = json_object_new_array();
	if ((err = conf_read(&c)) || (err = conf_check(&c)) ||
	    (err = need_caps("apply", NEED_ADMIN)) ||
	    (err = conf_resolve(&c, args.skip_missing)))
		goto out;

	/* Locked from here to the last change, attach's and detach's too. */
	err = session_open(&s, SESSION_CLEAN);
	if (err)
		goto out;
	if (a->present && c.p && same_policy(&c, a) && c.p->map &&
	    (fd = err = session_policy_map(&s, c.p)) < 0)
		goto out;
	err = make_plan(&c, a, fd, &pl);
	if (err) {
		p_err("apply: out of memory");
		goto out;
	}

	if (!args.dry_run && pl.detach)
		err = detach_policy(&s, &sub);
	else if (!args.dry_run && pl.reattach)
		err = attach_policy(&s, c.p, &c.cfg, c.want, c.nwant, true, &sub);
	else if (!args.dry_run && pl.nedits)
		err = edit_in_place(&pl, fd, c.p->kind == OOMCTL_ENTRIES_PID_SET);
	json_object_put(sub);
	if (err)
		goto out;

	res = json_object_new_object();
	json_object_object_add(res, "file", json_object_new_string(c.file));
	json_object_object_add(res, "dry_run", json_object_new_boolean(args.dry_run));
	json_object_object_add(res, "changed", json_object_new_boolean(
			       !args.dry_run && json_object_array_length(pl.changes)));
	json_object_object_add(res, "policy", c.p ? json_object_new_string(c.p->name) : NULL);
	json_object_object_add(res, "changes", json_object_get(pl.changes));
	json_object_object_add(res, "skipped", json_object_get(c.skipped));
	print_result(res, apply_text, NULL);
	json_object_put(res);
out:
	session_close(&s);
	plan_free(&pl);
	conf_free(&c);
	return err;
}
