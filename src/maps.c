// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - a policy's own map read back as JSON, by the kind of entries the
 * policy declares: for status, attach, apply and oomctl entry get.
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

/* By the kind of entries @p declares, its value under its entry word. */
struct json_object *policy_entries(const struct policy *p, int fd)
{
	switch (p->kind) {
	case OOMCTL_ENTRIES_CGROUP_VALUE:
		return cgroup_entries(fd, p->desc.entry);
	case OOMCTL_ENTRIES_CGROUP_SET:
		return cgroup_entries(fd, NULL);
	case OOMCTL_ENTRIES_PID_SET:
		return pid_entries(fd);
	default:
		return json_object_new_array();
	}
}
