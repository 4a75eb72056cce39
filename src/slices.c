// SPDX-License-Identifier: GPL-2.0
/*
 * slices.c - maps that hold a set of cgroups: rss-slice's slices (set-slice,
 * unset-slice, get-slices) and abort-all's scope (filled by attach
 * --cgroup or apply). Every CGROUP is resolved before the map is touched, and a
 * failure undoes what the command had changed, so a bad argument changes
 * nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

struct json_object *cgroup_set_entries(int fd)
{
	return cgroup_entries(fd, NULL);
}

/* Resolve argv[first..argc) into a new array; NULL after p_err. */
static struct cgroup_ref *resolve_all(int argc, char **argv, int first)
{
	struct cgroup_ref *cgs = calloc(argc - first, sizeof(*cgs));

	if (!cgs) {
		p_err("out of memory");
		return NULL;
	}
	for (int i = first; i < argc; i++) {
		if (cgroup_resolve(argv[i], &cgs[i - first])) {
			free(cgs);
			return NULL;
		}
	}
	return cgs;
}

static struct json_object *set_result(const struct cgroup_ref *cgs, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "cgroup", json_object_new_string(cgs[i].cgpath));
		json_object_object_add(o, "path", json_object_new_string(cgs[i].path));
		json_object_object_add(o, "cgroup_id", json_object_new_int64(cgs[i].id));
		json_object_array_add(a, o);
	}
	return a;
}

static void added_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("%s: in the slices\n", jstr(json_object_array_get_idx(a, i), "path"));
}

static void removed_text(struct json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		printf("%s: removed from the slices\n",
		       jstr(json_object_array_get_idx(a, i), "path"));
}

static int change_slices(const char *cmd, int argc, char **argv, bool add)
{
	struct pindir pd = { .fd = -1 };
	struct cgroup_ref *cgs = NULL;
	struct map_entry *e = NULL;
	struct json_object *res;
	int first, fd = -1, rc = EXIT_FAIL, err;
	size_t n;
	__u32 v, one = 1;

	CMD_ARGS(cmd, 1, -1);
	n = argc - first;
	if (need_caps(cmd, NEED_BPF))
		return EXIT_FAIL;
	cgs = resolve_all(argc, argv, first);
	if (!cgs)
		return EXIT_FAIL;
	e = calloc(n, sizeof(*e));
	if (!e) {
		p_err("%s: out of memory", cmd);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		e[i] = (struct map_entry){ .cg = &cgs[i], .value = 1 };
	fd = policy_map(cmd, "rss-slice", &pd);
	if (fd < 0)
		goto out;
	if (add) {
		err = entries_add(fd, e, n);
		if (err) {
			p_err("%s: cannot add the slices: %s%s", cmd, strerror(-err),
			      err == -E2BIG ? " (the map is full)" : "");
			goto out;
		}
		if (entries_recheck(cmd, fd, e, n))
			goto out;
	} else {
		for (size_t i = 0; i < n; i++) {
			if (bpf_map_lookup_elem(fd, &cgs[i].id, &v)) {
				p_err("%s: %s is not a slice", cmd, cgs[i].path);
				goto out;
			}
		}
		for (size_t i = 0; i < n; i++) {
			if (!bpf_map_delete_elem(fd, &cgs[i].id) || errno == ENOENT)
				continue;
			p_err("%s: %s: %s", cmd, cgs[i].path, strerror(errno));
			for (size_t j = 0; j < i; j++)	/* undo */
				bpf_map_update_elem(fd, &cgs[j].id, &one, BPF_ANY);
			goto out;
		}
	}
	res = set_result(cgs, n);
	print_result(res, add ? added_text : removed_text);
	json_object_put(res);
	rc = EXIT_OK;
out:
	free(e);
	free(cgs);
	if (fd >= 0)
		close(fd);
	pindir_close(&pd);
	return rc;
}

int do_set_slice(int argc, char **argv)
{
	return change_slices("set-slice", argc, argv, true);
}

int do_unset_slice(int argc, char **argv)
{
	return change_slices("unset-slice", argc, argv, false);
}

static void slices_text(struct json_object *a)
{
	if (!json_object_array_length(a))
		printf("no slices: the kernel heuristic decides every OOM\n");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);

		printf("%s\n", jget(o, "path") ? jstr(o, "path") : "(removed cgroup)");
	}
}

int do_get_slices(int argc, char **argv)
{
	return list_entries("get-slices", argc, argv, "rss-slice",
			    cgroup_set_entries, slices_text);
}
