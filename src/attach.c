// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - oomctl attach and oomctl detach.
 *
 * attach builds the whole policy in <bpffs>/oomctl/staging-PID (maps
 * pinned, programs attached, links pinned) and then renames it into place:
 * the rename is the commit point, and a run killed before it leaves only a
 * staging directory that the next run unpins. With --replace the new links
 * are attached while the old ones still are (fmod_ret programs stack and the
 * newest runs first, so the new verdict wins at once), then the two
 * directories are exchanged atomically and the old one is unpinned: there
 * is no moment with neither policy attached.
 *
 * A pinned link keeps a tracing program attached after oomctl exits; a
 * pinned program alone would not. Tracing links cannot be force-detached,
 * only released, so detach checks afterwards that they are really gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "oomctl.h"

#define MAX_LINKS 16	/* programs per policy */

struct attach_args {
	const char *name;
	const char *default_prio;
	const char *max_pause;
	bool replace;
	/* --slice or --cgroup CGROUP, in the order given */
	const char *cg_opt;
	const char **cg_args;
	size_t ncg;
};

enum {
	OPT_NAME = 0x200, OPT_DEFAULT_PRIO, OPT_REPLACE, OPT_SLICE, OPT_CGROUP,
	OPT_MAX_PAUSE,
};

static int attach_opt(int c, const char *arg, void *ctx)
{
	struct attach_args *a = ctx;
	const char *opt = c == OPT_SLICE ? "slice" : "cgroup";
	const char **v;

	switch (c) {
	case OPT_SLICE:
	case OPT_CGROUP:
		if (a->cg_opt && strcmp(a->cg_opt, opt))
			return usage_err("attach", "--slice and --cgroup belong to "
					 "different policies");
		v = realloc(a->cg_args, (a->ncg + 1) * sizeof(*v));
		if (!v)
			return usage_err("attach", "out of memory");
		a->cg_opt = opt;
		a->cg_args = v;
		a->cg_args[a->ncg++] = arg;
		return 0;
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_DEFAULT_PRIO:
		a->default_prio = arg;
		return 0;
	case OPT_REPLACE:
		a->replace = true;
		return 0;
	case OPT_MAX_PAUSE:
		a->max_pause = arg;
		return 0;
	}
	return usage_err("attach", "unknown option");
}

/* Copy every entry of the old policy's own map into the new one. */
static int migrate_entries(struct session *s, const struct policy *p, int new_fd)
{
	const char *cmd = s->cmd;
	__u64 key, next, val;	/* both key types fit in 8 bytes */
	void *prev = NULL;
	int fd, err = 0;

	if (!p->map)
		return 0;
	fd = session_fd(s, PIN_MAP, p->map);
	if (fd < 0) {
		p_err("%s: cannot open the attached policy's map %s: %s", cmd, p->map,
		      strerror(-fd));
		return fd;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;	/* deleted meanwhile (cgroup removed) */
		if (bpf_map_update_elem(new_fd, &key, &val, BPF_ANY)) {
			err = -errno;
			break;
		}
	}
	if (err)
		p_err("%s: cannot copy %s entries into the new policy: %s",
		      cmd, p->map, strerror(-err));
	return err;
}

/* Fail when anything but our own policy's links sits on the evaluate hook. */
static int check_hook_free(const char *cmd, const struct pindir *pd,
			   const struct hooks *h, const struct attached *old,
			   bool replace)
{
	struct pinned_obj *pins = NULL;
	struct hooked_link *links = NULL;
	size_t npins = 0, nlinks = 0;
	int err = hooked_links(h, &links, &nlinks);

	if (err)
		return err;
	if (old->present)
		list_pins(pd, POLICY_SUBDIR, &pins, &npins);
	for (size_t i = 0; i < nlinks && !err; i++) {
		bool ours = false;

		if (links[i].hook != HOOK_EVALUATE)
			continue;
		for (size_t j = 0; j < npins; j++)
			ours |= pins[j].is_link && pins[j].id == links[i].link_id;
		if (!ours) {
			p_err("%s: a program not attached by oomctl is on %s: "
			      "prog '%s' (id %u, link %u); fmod_ret programs stack, "
			      "so oomctl will not attach on top of it", cmd,
			      hook_names[HOOK_EVALUATE], links[i].prog_name,
			      links[i].prog_id, links[i].link_id);
			err = -EBUSY;
		}
	}
	if (!err && old->present && !replace) {
		p_err("%s: policy %s is already attached; use --replace to swap it, "
		      "or 'oomctl detach' first", cmd, old->policy->name);
		err = -EEXIST;
	}
	free(links);
	free(pins);
	return err;
}

static int pin_map(const char *cmd, const struct pindir *pd, const char *dir,
		   struct bpf_map *m)
{
	char rel[256], path[PATH_MAX];
	int err;

	pin_rel(rel, sizeof(rel), dir, PIN_MAP, bpf_map__name(m));
	err = pindir_fdpath(pd, rel, path, sizeof(path));
	if (!err)
		err = bpf_map__pin(m, path);
	if (err) {
		p_err("%s: cannot pin map %s: %s", cmd, bpf_map__name(m), strerror(-err));
		return err;
	}
	fchmodat(pd->fd, rel, 0600, 0);
	test_stop_at(STEP_MAP_PINNED);
	return 0;
}

/* Attach @prog and pin its link; the link is also kept in @links[*n]. */
static int attach_prog(const char *cmd, const struct pindir *pd, const char *dir,
		       struct bpf_program *prog, struct bpf_link **links, size_t *n)
{
	char rel[256], path[PATH_MAX];
	struct bpf_link *l;
	int err;

	if (*n == MAX_LINKS) {
		p_err("%s: more than %d programs in one policy", cmd, MAX_LINKS);
		return -E2BIG;
	}
	l = bpf_program__attach(prog);
	if (!l) {
		err = -errno;
		p_err("%s: cannot attach program %s: %s", cmd, bpf_program__name(prog),
		      strerror(-err));
		return err;
	}
	links[(*n)++] = l;
	test_stop_at(STEP_LINK_ATTACHED);
	pin_rel(rel, sizeof(rel), dir, PIN_LINK, bpf_program__name(prog));
	err = pindir_fdpath(pd, rel, path, sizeof(path));
	if (!err)
		err = bpf_link__pin(l, path);
	if (err) {
		p_err("%s: cannot pin the link of %s: %s", cmd, bpf_program__name(prog),
		      strerror(-err));
		return err;
	}
	fchmodat(pd->fd, rel, 0600, 0);
	test_stop_at(STEP_LINK_PINNED);
	return 0;
}

/* The fmod_ret program on bpf_oom_evaluate_task, the one choosing. */
static bool is_evaluate(const struct bpf_program *prog)
{
	return bpf_program__expected_attach_type(prog) == BPF_MODIFY_RETURN;
}

static void attach_text(struct json_object *o, const void *ctx)
{
	struct json_object *a;

	(void)ctx;
	printf("attached %s (policy_name %s), pinned in %s\n", jstr(o, "policy"),
	       jstr(o, "name"), jstr(o, "pin_dir"));
	if ((a = jget(o, "slices")))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			printf("slice %s\n", jstr(json_object_array_get_idx(a, i), "path"));
	if (jget(o, "scoped"))
		printf("aborts %s\n", json_object_get_boolean(jget(o, "scoped")) ?
		       "the memcg OOMs of:" : "every memcg OOM");
	if ((a = jget(o, "scope")) && jget(o, "scoped") &&
	    json_object_get_boolean(jget(o, "scoped")))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			printf("  %s\n", jstr(json_object_array_get_idx(a, i), "path"));
	if (jget(o, "max_pause_s"))
		printf("a pause lasts at most %lld s, then the kernel kills\n",
		       jint(o, "max_pause_s"));
	else if (json_object_object_get_ex(o, "max_pause_s", NULL))
		printf("a pause lasts until memory is freed (max-pause infinity)\n");
	if (jget(o, "replaced"))
		printf("replaced %s\n", jstr(o, "replaced"));
}

/* The policy's own map in a loaded object; quiet: -ENOENT if none. */
static int own_map_fd(struct bpf_object *obj, const struct policy *p)
{
	struct bpf_map *m = p->map ? bpf_object__find_map_by_name(obj, p->map) : NULL;

	return m ? bpf_map__fd(m) : -ENOENT;
}

/* A map of @obj is @name, of @type with these sizes (0: any type)? */
static bool map_is(struct bpf_object *obj, const char *name, enum bpf_map_type type,
		   __u32 key_sz, __u32 value_sz)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m && (!type || bpf_map__type(m) == type) &&
	       bpf_map__key_size(m) == key_sz && bpf_map__value_size(m) == value_sz;
}

/*
 * A policy object from a file, opened, before the kernel sees it: its
 * maps have the layouts oomctl reads (the ABI) and its programs attach
 * where oomctl's do. 0, or -ENOEXEC after one line naming the file.
 */
static int check_object(const char *cmd, const struct policy *p, struct bpf_object *obj)
{
	static const struct {
		const char *name;
		enum bpf_map_type type;
		__u32 key, value;
	} abi[] = {
		{ "oomctl_config", BPF_MAP_TYPE_ARRAY, 4, sizeof(struct oomctl_config) },
		{ "oomctl_state", BPF_MAP_TYPE_ARRAY, 4, sizeof(struct oomctl_state) },
		{ "oomctl_events_seen", BPF_MAP_TYPE_ARRAY, 4, sizeof(__u64) },
		{ "oomctl_explain_args", BPF_MAP_TYPE_ARRAY, 4,
		  sizeof(struct oomctl_explain_args) },
		{ "oomctl_events", BPF_MAP_TYPE_RINGBUF, 0, 0 },
	};
	__u32 key_sz = p->kind == OOMCTL_ENTRIES_PID_SET ? 4 : 8;
	char why[256];
	const char *w;

	for (size_t i = 0; i < sizeof(abi) / sizeof(abi[0]); i++) {
		if (map_is(obj, abi[i].name, abi[i].type, abi[i].key, abi[i].value))
			continue;
		p_err("%s: %s: map %s is missing or not of this oomctl's layout (build "
		      "it with this oomctl's policy.bpf.h)", cmd, p->path, abi[i].name);
		return -ENOEXEC;
	}
	if (p->map && !map_is(obj, p->map, 0, key_sz, sizeof(__u32))) {
		p_err("%s: %s: its entry map %s is missing or does not map %s to __u32",
		      cmd, p->path, p->map, key_sz == 4 ? "a pid (__u32)" : "a cgroup id (__u64)");
		return -ENOEXEC;
	}
	w = policy_programs_problem(obj, why, sizeof(why));
	if (w) {
		p_err("%s: %s: %s", cmd, p->path, w);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * The entries of a policy's own map: @want (attach --slice or --cgroup,
 * apply), else, with --replace of the same policy, the old policy's, so
 * that a replace keeps the configuration.
 */
static int fill_entries(struct session *s, const struct policy *p,
			struct bpf_object *obj, const struct map_entry *want,
			size_t nwant)
{
	const char *cmd = s->cmd;
	int err;

	if (want) {
		err = entries_add(own_map_fd(obj, p), want, nwant);
		if (err)
			p_err("%s: cannot fill map %s: %s%s", cmd, p->map, strerror(-err),
			      err == -E2BIG ? " (the map is full)" : "");
		return err;
	}
	if (s->a.present && policy_same(s->a.policy, p))
		return migrate_entries(s, p, own_map_fd(obj, p));
	return 0;
}

/*
 * Load @p, configure and fill it, attach it in a staging directory and
 * commit. On success *@res describes what is attached (for print_result).
 * The session is the caller's: apply's, or opened here (made, locked,
 * cleaned) after the checks that need no pin directory.
 */
int attach_policy(struct session *s, const struct policy *p,
		  struct oomctl_config *cfg, const struct map_entry *want,
		  size_t nwant, bool replace, struct json_object **res)
{
	const char *cmd = s->cmd;
	const struct attached *old = &s->a;
	const struct pindir *pd = &s->pd;
	struct bpf_link *links[MAX_LINKS];
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	struct bpf_map *m;
	struct hooks hooks;
	char staging[64], dir[PATH_MAX + 16];
	size_t nlinks = 0;
	bool staged = false;
	__u32 zero = 0;
	int err;

	/* Checks first, in the order a user would fix them; nothing loaded. */
	*res = NULL;
	if ((err = need_caps(cmd, NEED_ADMIN)) || (err = hooks_find(&hooks)) ||
	    (err = session_open(s, SESSION_CREATE | SESSION_CLEAN)))
		return err;
	err = check_hook_free(cmd, pd, &hooks, old, replace);
	if (err)
		goto out;
	/* A replace of the same policy without new entries keeps its scope. */
	if (!want && old->present && policy_same(old->policy, p))
		cfg->flags = old->cfg.flags;

	obj = policy_open(p);
	if (!obj) {
		err = -errno;
		p_err("%s: cannot open policy %s: %s", cmd, p->path ? p->path : p->name,
		      strerror(-err));
		goto out;
	}
	if (p->from_file && (err = check_object(cmd, p, obj)))
		goto out;
	bpf_log_capture(true);
	err = bpf_object__load(obj);
	bpf_log_capture(false);
	if (err) {
		p_err("%s: the kernel refused policy %s: %s", cmd, p->name,
		      strerror(-err));
		bpf_log_print_tail();
		goto out;
	}
	m = bpf_object__find_map_by_name(obj, "oomctl_config");
	if (!m || bpf_map_update_elem(bpf_map__fd(m), &zero, cfg, BPF_ANY)) {
		err = m ? -errno : -ENOENT;
		p_err("%s: cannot write the policy's config: %s", cmd, strerror(errno));
		goto out;
	}
	err = fill_entries(s, p, obj, want, nwant);
	if (err)
		goto out;
	test_stop_at(STEP_LOADED);

	snprintf(staging, sizeof(staging), "staging-%d", getpid());
	if (mkdirat(pd->fd, staging, 0700)) {
		err = -errno;
		p_err("%s: cannot create %s/%s: %s", cmd, pd->path, staging, strerror(-err));
		goto out;
	}
	staged = true;
	test_stop_at(STEP_STAGED);
	bpf_object__for_each_map(m, obj) {
		if (!bpf_map__is_internal(m) && (err = pin_map(cmd, pd, staging, m)))
			goto out;
	}
	/* The evaluate program last: by then the name and counters are live. */
	bpf_object__for_each_program(prog, obj) {
		if (!is_evaluate(prog) &&
		    (err = attach_prog(cmd, pd, staging, prog, links, &nlinks)))
			goto out;
	}
	/* The cgroup_rmdir program is attached now: a cgroup removed since it
	 * was resolved would linger in the map.
	 */
	if (want && (err = entries_recheck(cmd, own_map_fd(obj, p), want, nwant)))
		goto out;
	bpf_object__for_each_program(prog, obj) {
		if (is_evaluate(prog) &&
		    (err = attach_prog(cmd, pd, staging, prog, links, &nlinks)))
			goto out;
	}

	/*
	 * Commit: one rename. With --replace, an atomic exchange, after which
	 * the staging name holds the old policy, released by unpinning.
	 */
	if (renameat2(pd->fd, staging, pd->fd, POLICY_SUBDIR,
		      old->present ? RENAME_EXCHANGE : RENAME_NOREPLACE)) {
		err = -errno;
		p_err("%s: cannot move %s into place: %s", cmd, staging, strerror(-err));
		goto out;
	}
	test_stop_at(STEP_RENAMED_IN);
	/* What the session opened in policy/ is the old policy's now. */
	session_drop_fds(s);
	if (old->present)
		remove_pins(pd, staging);
	staged = false;

	*res = json_object_new_object();
	json_object_object_add(*res, "policy", json_object_new_string(p->name));
	if (p->from_file)
		json_object_object_add(*res, "file", json_object_new_string(p->path));
	json_object_object_add(*res, "name", json_object_new_string(cfg->name));
	if (p->has_default_prio)
		json_object_object_add(*res, "default_prio",
				       json_object_new_int(cfg->default_prio));
	if (p->scoping)
		json_object_object_add(*res, "scoped", json_object_new_boolean(
				       cfg->flags & OOMCTL_CFG_SCOPED));
	if (p->has_max_pause)
		json_object_object_add(*res, "max_pause_s", cfg->max_pause_s ?
				       json_object_new_int64(cfg->max_pause_s) : NULL);
	if (p->cgroup_opt)
		json_object_object_add(*res, p->entries,
				       policy_entries(p, own_map_fd(obj, p)));
	snprintf(dir, sizeof(dir), "%s/" POLICY_SUBDIR, pd->path);
	json_object_object_add(*res, "pin_dir", json_object_new_string(dir));
	if (old->present)
		json_object_object_add(*res, "replaced",
				       json_object_new_string(old->policy->name));
	test_stop_at(STEP_DONE);
out:
	/* On failure this releases every link: nothing stays attached. */
	if (staged)
		remove_pins(pd, staging);
	for (size_t i = 0; i < nlinks; i++) {
		if (!err)
			bpf_link__disconnect(links[i]);
		bpf_link__destroy(links[i]);
	}
	bpf_object__close(obj);
	/* A failed first attach leaves no empty pin directory behind. */
	if (err && pd->created)
		rmdir(pd->path);
	return err;
}

int do_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, OPT_NAME },
		{ "default-prio", required_argument, NULL, OPT_DEFAULT_PRIO },
		{ "replace", no_argument, NULL, OPT_REPLACE },
		{ "slice", required_argument, NULL, OPT_SLICE },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "max-pause", required_argument, NULL, OPT_MAX_PAUSE },
		{ 0 }
	};
	struct session s = SESSION_INIT("attach");
	struct attach_args args = {};
	struct oomctl_config cfg = { .abi_version = OOMCTL_ABI_VERSION };
	struct cgroup_ref *cgs = NULL;
	struct map_entry *want = NULL;
	struct json_object *res;
	struct policy file = {};
	const struct policy *p;
	unsigned long prio = 0;
	int first, err;

	err = parse_cmd_opts("attach", argc, argv, opts, NULL, attach_opt, &args,
			     &first);
	if (err) {
		err = err < 0 ? err : 0;
		goto out;
	}
	if (first >= argc) {
		err = usage_err("attach", "which policy? (%s, or a policy object's path)",
				policy_names());
		goto out;
	}
	if (argc - first > 1) {
		err = usage_err("attach", "unexpected argument '%s'", argv[first + 1]);
		goto out;
	}
	if (is_policy_path(argv[first])) {
		/* Read and checked here, loaded by attach_policy(). */
		err = policy_from_file("attach", argv[first], &file);
		if (err)
			goto out;
		p = &file;
	} else if (!(p = policy_by_name(argv[first]))) {
		err = usage_err("attach", "unknown policy '%s' (%s, or a policy object's path "
				"such as ./%s.bpf.o)", argv[first], policy_names(), argv[first]);
		goto out;
	}
	if (args.cg_opt && (!p->cgroup_opt || strcmp(p->cgroup_opt, args.cg_opt))) {
		err = usage_err("attach", "--%s applies to %s only", args.cg_opt,
				policies_with(policy_has_entry, args.cg_opt));
		goto out;
	}
	if (args.name && !*args.name) {
		err = usage_err("attach", "--name: the name is empty");
		goto out;
	}
	if (args.name && strlen(args.name) >= OOMCTL_NAME_LEN) {
		err = usage_err("attach", "--name '%s' is %zu bytes long; at most %d",
				args.name, strlen(args.name), OOMCTL_NAME_LEN - 1);
		goto out;
	}
	if (args.default_prio && !p->has_default_prio) {
		err = usage_err("attach", "--default-prio applies to %s only",
				policies_with(policy_has_default, NULL));
		goto out;
	}
	if (args.default_prio) {
		err = parse_uint(args.default_prio, p->desc.value_min,
				 p->desc.value_max, &prio);
		if (err) {
			err = usage_err("attach", "--default-prio '%s' is %s, want %u..%u",
					args.default_prio,
					err == -ERANGE ? "out of range" : "not a decimal integer",
					p->desc.value_min, p->desc.value_max);
			goto out;
		}
	}
	if (args.max_pause && !p->has_max_pause) {
		err = usage_err("attach", "--max-pause applies to %s only",
				policies_with(policy_has_max_pause, NULL));
		goto out;
	}
	cfg.max_pause_s = p->has_max_pause ? OOMCTL_MAX_PAUSE_DEFAULT_S : 0;
	if (args.max_pause) {
		err = parse_max_pause(args.max_pause, &cfg.max_pause_s);
		if (err) {
			err = usage_err("attach", "--max-pause '%s' is %s, want %s",
					args.max_pause,
					err == -ERANGE ? "out of range" : "not a number",
					MAX_PAUSE_WANT);
			goto out;
		}
	}
	cfg.desc = p->desc;
	cfg.source = p->from_file ? OOMCTL_SOURCE_FILE : OOMCTL_SOURCE_BUNDLED;
	cfg.default_prio = prio;
	if (args.ncg && p->scoping)
		cfg.flags |= OOMCTL_CFG_SCOPED;
	snprintf(cfg.name, sizeof(cfg.name), "%s", args.name ? args.name : p->name);

	/* Every cgroup is resolved before anything is loaded. */
	cgs = calloc(args.ncg ? args.ncg : 1, sizeof(*cgs));
	want = calloc(args.ncg ? args.ncg : 1, sizeof(*want));
	if (!cgs || !want) {
		p_err("attach: out of memory");
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < args.ncg; i++) {
		err = cgroup_resolve(args.cg_args[i], &cgs[i]);
		if (err)
			goto out;
		want[i] = (struct map_entry){ .cg = &cgs[i], .value = 1 };
	}
	err = attach_policy(&s, p, &cfg, args.ncg ? want : NULL, args.ncg,
			    args.replace, &res);
	if (!err) {
		print_result(res, attach_text, NULL);
		json_object_put(res);
	}
out:
	session_close(&s);
	policy_free(&file);
	free(want);
	free(cgs);
	free(args.cg_args);
	return err;
}

/* Ids of everything the policy consists of, to check they are released. */
struct obj_ids {
	__u32 links[16], progs[16], maps[64];
	size_t nlinks, nprogs, nmaps;
};

static void add_id(__u32 *v, size_t *n, size_t max, __u32 id)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == id)
			return;
	if (*n < max)
		v[(*n)++] = id;
}

static void collect_ids(struct pinned_obj *pins, size_t npins, struct obj_ids *ids)
{
	memset(ids, 0, sizeof(*ids));
	for (size_t i = 0; i < npins; i++) {
		if (!pins[i].is_link) {
			add_id(ids->maps, &ids->nmaps, 64, pins[i].id);
			continue;
		}
		add_id(ids->links, &ids->nlinks, 16, pins[i].id);
		add_id(ids->progs, &ids->nprogs, 16, pins[i].prog_id);
	}
	/* The programs' internal maps (.bss) are not pinned: ask the programs. */
	for (size_t i = 0; i < ids->nprogs; i++) {
		__u32 map_ids[16], len;
		struct bpf_prog_info info = {};
		int fd = bpf_prog_get_fd_by_id(ids->progs[i]);

		if (fd < 0)
			continue;
		info.nr_map_ids = 16;
		info.map_ids = (__u64)(unsigned long)map_ids;
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			for (__u32 j = 0; j < info.nr_map_ids && j < 16; j++)
				add_id(ids->maps, &ids->nmaps, 64, map_ids[j]);
		close(fd);
	}
}

static bool id_exists(int (*get)(__u32), __u32 id)
{
	int fd = get(id);

	if (fd < 0)
		return errno != ENOENT;
	close(fd);
	return true;
}

/* Unpinned objects are freed after an RCU grace period: poll, bounded. */
static const char *remaining(const struct obj_ids *ids, __u32 *which)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	for (int tries = 0; tries < 250; tries++) {	/* 5 s */
		const char *kind = NULL;

		for (size_t i = 0; !kind && i < ids->nlinks; i++)
			if (id_exists(bpf_link_get_fd_by_id, ids->links[i]))
				kind = "link", *which = ids->links[i];
		for (size_t i = 0; !kind && i < ids->nprogs; i++)
			if (id_exists(bpf_prog_get_fd_by_id, ids->progs[i]))
				kind = "program", *which = ids->progs[i];
		for (size_t i = 0; !kind && i < ids->nmaps; i++)
			if (id_exists(bpf_map_get_fd_by_id, ids->maps[i]))
				kind = "map", *which = ids->maps[i];
		if (!kind)
			return NULL;
		nanosleep(&ts, NULL);
		if (tries == 249)
			return kind;
	}
	return NULL;
}

static struct json_object *id_array(const __u32 *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(v[i]));
	return a;
}

static void detach_text(struct json_object *o, const void *ctx)
{
	(void)ctx;
	printf("detached %s: %zu links, %zu programs and %zu maps released\n",
	       jstr(o, "detached"), json_object_array_length(jget(o, "links")),
	       json_object_array_length(jget(o, "programs")),
	       json_object_array_length(jget(o, "maps")));
}

/*
 * Unpin the attached policy and check that nothing of it remains. On
 * success *@res says what was released (for print_result). The session is
 * the caller's: apply's, or opened here.
 */
int detach_policy(struct session *s, struct json_object **res)
{
	const char *cmd = s->cmd;
	const struct pindir *pd = &s->pd;
	struct pinned_obj *pins = NULL;
	struct obj_ids ids;
	char gone[64];
	const char *left;
	size_t npins = 0;
	__u32 id = 0;
	int err;

	*res = NULL;
	if ((err = need_caps(cmd, NEED_ADMIN)) || (err = session_open(s, SESSION_POLICY)))
		return err;
	cleanup_stale(pd);
	/* An fd the session holds would keep its map from being released. */
	session_drop_fds(s);
	err = list_pins(pd, POLICY_SUBDIR, &pins, &npins);
	if (err) {
		p_err("%s: cannot list %s/%s: %s", cmd, pd->path, POLICY_SUBDIR,
		      strerror(-err));
		goto out;
	}
	collect_ids(pins, npins, &ids);
	/*
	 * Commit: one rename out of place, so that a detach killed while
	 * unpinning leaves no half policy in policy/, only a detaching-PID
	 * directory that the next run releases.
	 */
	snprintf(gone, sizeof(gone), "detaching-%d", getpid());
	if (renameat2(pd->fd, POLICY_SUBDIR, pd->fd, gone, RENAME_NOREPLACE)) {
		err = -errno;
		p_err("%s: cannot move %s/%s out of place: %s", cmd, pd->path,
		      POLICY_SUBDIR, strerror(-err));
		goto out;
	}
	test_stop_at(STEP_RENAMED_OUT);
	err = remove_pins(pd, gone);
	if (err) {
		p_err("%s: cannot unpin %s/%s: %s", cmd, pd->path, gone, strerror(-err));
		goto out;
	}
	left = remaining(&ids, &id);
	if (left) {
		p_err("%s: %s %u still exists after unpinning: another process or "
		      "pin holds it%s", cmd, left, id,
		      strcmp(left, "map") ? ", so the policy stays attached until it "
		      "is released" : "");
		err = -EBUSY;
		goto out;
	}
	*res = json_object_new_object();
	json_object_object_add(*res, "detached", json_object_new_string(s->a.policy->name));
	json_object_object_add(*res, "links", id_array(ids.links, ids.nlinks));
	json_object_object_add(*res, "programs", id_array(ids.progs, ids.nprogs));
	json_object_object_add(*res, "maps", id_array(ids.maps, ids.nmaps));
	test_stop_at(STEP_DONE);
out:
	free(pins);
	return err;
}

int do_detach(int argc, char **argv)
{
	struct session s = SESSION_INIT("detach");
	struct json_object *res;
	int first, err;

	err = parse_cmd_opts("detach", argc, argv, NULL, NULL, NULL, NULL, &first);
	if (err)
		return err < 0 ? err : 0;
	if (first < argc)
		return usage_err("detach", "unexpected argument '%s'", argv[first]);
	err = detach_policy(&s, &res);
	if (!err) {
		print_result(res, detach_text, NULL);
		json_object_put(res);
	}
	session_close(&s);
	return err;
}
