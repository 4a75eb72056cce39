// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - the map commands: set-prio, get-prio, unset-prio (cgprio) and
 * add-pid, del-pid, get-pids (pid). Every argument is checked before the
 * map is touched, so a bad one changes nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

/* Parse options, demand @min..@max positional args; 0, -1 (help shown),
 * or an exit code.
 */
int cmd_args(const char *cmd, int argc, char **argv, int min, int max,
		    int *first)
{
	int err = parse_cmd_opts(cmd, argc, argv, NULL, NULL, NULL, NULL, first);

	if (err)
		return err < 0 ? -1 : err;
	if (argc - *first < min)
		return usage_err(cmd, "missing argument");
	if (max >= 0 && argc - *first > max)
		return usage_err(cmd, "unexpected argument '%s'", argv[*first + max]);
	return 0;
}

/* Open the pin directory and @policy's map: the fd, or -1 after p_err. */
int policy_map(const char *cmd, const char *policy, struct pindir *pd)
{
	const struct policy *p = policy_by_name(policy);
	int err = pindir_open(pd, false);

	if (err == -ENOENT) {
		p_err("%s: no %s policy is attached (oomctl attach %s)", cmd, policy,
		      policy);
		return -1;
	}
	if (err)
		return -1;
	return open_policy_map(pd, p, cmd);
}

static int parse_prio(const char *cmd, const char *s, __u32 *prio)
{
	unsigned long v;
	int err = parse_uint(s, OOMCTL_PRIO_MIN, OOMCTL_PRIO_MAX, &v);

	if (err)
		return usage_err(cmd, "PRIO '%s' is %s, want %d..%d", s,
				 err == -ERANGE ? "out of range" : "not a decimal integer",
				 OOMCTL_PRIO_MIN, OOMCTL_PRIO_MAX);
	*prio = v;
	return 0;
}

static struct json_object *prio_entry(const struct cgroup_ref *cg, __u32 prio)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "cgroup", json_object_new_string(cg->cgpath));
	json_object_object_add(o, "path", json_object_new_string(cg->path));
	json_object_object_add(o, "cgroup_id", json_object_new_int64(cg->id));
	json_object_object_add(o, "prio", json_object_new_int64(prio));
	return o;
}

static void set_prio_text(struct json_object *o)
{
	printf("%s: prio %lld\n", jstr(o, "path"), jint(o, "prio"));
}

int do_set_prio(int argc, char **argv)
{
	struct pindir pd = { .fd = -1 };
	struct cgroup_ref cg;
	struct json_object *res;
	int first, fd, rc = EXIT_FAIL;
	__u32 prio;

	CMD_ARGS("set-prio", 2, 2);
	if (parse_prio("set-prio", argv[first + 1], &prio))
		return EXIT_USAGE;
	if (need_caps("set-prio", NEED_BPF) || cgroup_resolve(argv[first], &cg))
		return EXIT_FAIL;
	fd = policy_map("set-prio", "cgprio", &pd);
	if (fd < 0)
		goto out;
	if (bpf_map_update_elem(fd, &cg.id, &prio, BPF_ANY)) {
		p_err("set-prio: cannot set %s's prio: %s%s", cg.path, strerror(errno),
		      errno == E2BIG ? " (the map is full)" : "");
		goto out;
	}
	/* An rmdir between resolving and updating would leave a stale entry
	 * the cgroup_rmdir program never sees: look again.
	 */
	if (!cgroup_exists(cg.id, cg.path)) {
		bpf_map_delete_elem(fd, &cg.id);
		p_err("set-prio: cgroup %s was removed meanwhile", cg.path);
		goto out;
	}
	res = prio_entry(&cg, prio);
	print_result(res, set_prio_text);
	json_object_put(res);
	rc = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	pindir_close(&pd);
	return rc;
}

static void unset_prio_text(struct json_object *o)
{
	printf("%s: prio %lld removed\n", jstr(o, "path"), jint(o, "prio"));
}

int do_unset_prio(int argc, char **argv)
{
	struct pindir pd = { .fd = -1 };
	struct cgroup_ref cg;
	struct json_object *res;
	int first, fd, rc = EXIT_FAIL;
	__u32 prio;

	CMD_ARGS("unset-prio", 1, 1);
	if (need_caps("unset-prio", NEED_BPF) || cgroup_resolve(argv[first], &cg))
		return EXIT_FAIL;
	fd = policy_map("unset-prio", "cgprio", &pd);
	if (fd < 0)
		goto out;
	if (bpf_map_lookup_elem(fd, &cg.id, &prio) || bpf_map_delete_elem(fd, &cg.id)) {
		if (errno == ENOENT)
			p_err("unset-prio: %s has no prio of its own", cg.path);
		else
			p_err("unset-prio: %s: %s", cg.path, strerror(errno));
		goto out;
	}
	res = prio_entry(&cg, prio);
	json_object_object_add(res, "removed", json_object_new_boolean(1));
	print_result(res, unset_prio_text);
	json_object_put(res);
	rc = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	pindir_close(&pd);
	return rc;
}

/*
 * Every entry of a map keyed by cgroup id, paths resolved from ids (null
 * for a cgroup that is gone); with @value_key, the __u32 value under it.
 */
struct json_object *cgroup_entries(int fd, const char *value_key)
{
	struct cgroup_map *cm = cgroup_map_build();
	struct json_object *a = json_object_new_array();
	__u64 key, next;
	void *prev = NULL;
	__u32 val;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct json_object *o;
		const char *path = cgroup_map_path(cm, next, false);
		const char *cgpath = cgroup_map_path(cm, next, true);

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;	/* deleted meanwhile (cgroup removed) */
		o = json_object_new_object();
		json_object_object_add(o, "cgroup", cgpath ? json_object_new_string(cgpath) : NULL);
		json_object_object_add(o, "path", path ? json_object_new_string(path) : NULL);
		json_object_object_add(o, "cgroup_id", json_object_new_int64(key));
		if (value_key)
			json_object_object_add(o, value_key, json_object_new_int64(val));
		json_object_array_add(a, o);
	}
	cgroup_map_free(cm);
	return a;
}

struct json_object *prio_entries(int fd)
{
	return cgroup_entries(fd, "prio");
}

static void entries_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);

		printf("%5lld  %s\n", jint(o, "prio"), jget(o, "path") ?
		       jstr(o, "path") : "(removed cgroup)");
	}
}

/* Just the number, for scripts: $(oomctl get-prio CG); -j says where from. */
static void get_prio_text(struct json_object *o)
{
	printf("%lld\n", jint(o, "prio"));
}

/* The priority cgprio gives @cg: the same walk as effective_prio(). */
static struct json_object *effective(int fd, const struct cgroup_ref *cg,
				     __u32 default_prio)
{
	const char *mnt = cgroup2_mount();
	struct json_object *o = prio_entry(cg, default_prio);
	char dir[PATH_MAX];
	__u32 prio;

	snprintf(dir, sizeof(dir), "%s", cg->path);
	for (int i = 0; i < OOMCTL_MAX_DEPTH; i++) {
		__u64 id;

		if (!cgroup_id_of(dir, &id) && !bpf_map_lookup_elem(fd, &id, &prio)) {
			json_object_object_add(o, "prio", json_object_new_int64(prio));
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
	json_object_object_add(o, "source", json_object_new_string("default"));
	return o;
}

int do_get_prio(int argc, char **argv)
{
	struct pindir pd = { .fd = -1 };
	struct cgroup_ref cg;
	struct attached a;
	struct json_object *res;
	int first, fd, rc = EXIT_FAIL;

	CMD_ARGS("get-prio", 0, 1);
	if (need_caps("get-prio", NEED_BPF) ||
	    (first < argc && cgroup_resolve(argv[first], &cg)))
		return EXIT_FAIL;
	fd = policy_map("get-prio", "cgprio", &pd);
	if (fd < 0 || read_attached(&pd, &a))
		goto out;
	if (first < argc) {
		res = effective(fd, &cg, a.cfg.default_prio);
		print_result(res, get_prio_text);
	} else {
		res = prio_entries(fd);
		print_result(res, entries_text);
	}
	json_object_put(res);
	rc = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	pindir_close(&pd);
	return rc;
}

/* PIDs are checked all at once before any change. */
static int parse_pids(const char *cmd, int argc, char **argv, int first,
		      __u32 *pids)
{
	for (int i = first; i < argc; i++) {
		unsigned long v;
		int err = parse_uint(argv[i], 1, PID_MAX_LIMIT, &v);

		if (err)
			return usage_err(cmd, "PID '%s' is %s, want 1..%d", argv[i],
					 err == -ERANGE ? "out of range" :
					 "not a decimal integer", PID_MAX_LIMIT);
		pids[i - first] = v;
	}
	return 0;
}

/* The process's tgid from /proc, or 0 if it does not exist. */
__u32 proc_tgid(__u32 pid, char comm[16])
{
	char path[64], line[256];
	__u32 tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (comm && !strncmp(line, "Name:\t", 6))
			sscanf(line + 6, "%15[^\n]", comm);
		sscanf(line, "Tgid:\t%u", &tgid);
	}
	fclose(f);
	return tgid;
}

static struct json_object *pid_entry(__u32 pid)
{
	struct json_object *o = json_object_new_object();
	char comm[16] = "";

	json_object_object_add(o, "pid", json_object_new_int64(pid));
	if (proc_tgid(pid, comm))
		json_object_object_add(o, "comm", json_object_new_string(comm));
	else
		json_object_object_add(o, "comm", NULL);
	return o;
}

static void pids_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);

		printf("%7lld  %s\n", jint(o, "pid"),
		       jget(o, "comm") ? jstr(o, "comm") : "(exited)");
	}
}

struct json_object *pid_entries(int fd)
{
	struct json_object *a = json_object_new_array();
	__u32 key, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		json_object_array_add(a, pid_entry(key));
	}
	return a;
}

static void added_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("added %lld (%s)\n", jint(json_object_array_get_idx(a, i), "pid"),
		       jstr(json_object_array_get_idx(a, i), "comm"));
}

static void removed_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("removed %lld\n", jint(json_object_array_get_idx(a, i), "pid"));
}

static int change_pids(const char *cmd, int argc, char **argv, bool add)
{
	struct pindir pd = { .fd = -1 };
	struct json_object *res;
	int first, fd = -1, n, rc = EXIT_FAIL;
	__u32 *pids = NULL, one = 1, v;
	bool *fresh = NULL;

	CMD_ARGS(cmd, 1, -1);
	n = argc - first;
	pids = calloc(n, sizeof(*pids));
	fresh = calloc(n, sizeof(*fresh));
	if (!pids || !fresh) {
		p_err("%s: out of memory", cmd);
		rc = EXIT_FAIL;
		goto out;
	}
	if (parse_pids(cmd, argc, argv, first, pids)) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (need_caps(cmd, NEED_BPF))
		goto out;
	fd = policy_map(cmd, "pid", &pd);
	if (fd < 0)
		goto out;
	for (int i = 0; i < n; i++) {
		__u32 tgid = add ? proc_tgid(pids[i], NULL) : 0;

		if (add && !tgid) {
			p_err("%s: no process %u", cmd, pids[i]);
			goto out;
		}
		if (add && tgid != pids[i]) {
			p_err("%s: %u is a thread of process %u; give the process id",
			      cmd, pids[i], tgid);
			goto out;
		}
		if (!add && bpf_map_lookup_elem(fd, &pids[i], &v)) {
			p_err("%s: %u is not a target", cmd, pids[i]);
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		/* Remember which adds are new, to undo exactly those. */
		fresh[i] = add && bpf_map_lookup_elem(fd, &pids[i], &v);
		if (add ? bpf_map_update_elem(fd, &pids[i], &one, BPF_ANY) :
			  bpf_map_delete_elem(fd, &pids[i])) {
			p_err("%s: %u: %s%s", cmd, pids[i], strerror(errno),
			      errno == E2BIG ? " (the map is full)" : "");
			/* undo, so that a failure changes nothing */
			for (int j = 0; j < i; j++) {
				if (!add)
					bpf_map_update_elem(fd, &pids[j], &one, BPF_ANY);
				else if (fresh[j])
					bpf_map_delete_elem(fd, &pids[j]);
			}
			goto out;
		}
	}
	res = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(res, pid_entry(pids[i]));
	print_result(res, add ? added_text : removed_text);
	json_object_put(res);
	rc = EXIT_OK;
out:
	free(fresh);
	free(pids);
	if (fd >= 0)
		close(fd);
	pindir_close(&pd);
	return rc;
}

int do_add_pid(int argc, char **argv)
{
	return change_pids("add-pid", argc, argv, true);
}

int do_del_pid(int argc, char **argv)
{
	return change_pids("del-pid", argc, argv, false);
}

/*
 * A listing command (get-pids, get-slices): no argument; print every entry
 * of @policy's map through @list and @text.
 */
int list_entries(const char *cmd, int argc, char **argv, const char *policy,
		 struct json_object *(*list)(int fd),
		 void (*text)(struct json_object *))
{
	struct pindir pd = { .fd = -1 };
	struct json_object *res;
	int first, fd, rc = EXIT_FAIL;

	CMD_ARGS(cmd, 0, 0);
	if (need_caps(cmd, NEED_BPF))
		return EXIT_FAIL;
	fd = policy_map(cmd, policy, &pd);
	if (fd < 0)
		goto out;
	res = list(fd);
	print_result(res, text);
	json_object_put(res);
	rc = EXIT_OK;
	close(fd);
out:
	pindir_close(&pd);
	return rc;
}

int do_get_pids(int argc, char **argv)
{
	return list_entries("get-pids", argc, argv, "pid", pid_entries, pids_text);
}
