// SPDX-License-Identifier: GPL-2.0
/*
 * entries.c - adding entries to a policy's own map, for attach (a new map,
 * before its policy goes live), apply and set-slice. Keys are cgroup ids
 * (__u64) or pids (__u32): entry_key() gives the one the map expects.
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include "oomctl.h"

const void *entry_key(const struct map_entry *e)
{
	return e->cg ? (const void *)&e->cg->id : (const void *)&e->pid;
}

/*
 * Add or overwrite @e[0..n) in @fd. Quiet: 0, or -errno after removing the
 * entries it had added (overwritten ones keep the new value: callers that
 * must restore values, like apply, keep the old ones themselves).
 */
int entries_add(int fd, const struct map_entry *e, size_t n)
{
	bool *fresh = calloc(n ? n : 1, sizeof(*fresh));
	__u32 v;
	int err = 0;

	if (!fresh)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		fresh[i] = bpf_map_lookup_elem(fd, entry_key(&e[i]), &v) != 0;
		if (bpf_map_update_elem(fd, entry_key(&e[i]), &e[i].value, BPF_ANY)) {
			err = -errno;
			fresh[i] = false;
		}
	}
	for (size_t i = 0; err && i < n; i++)
		if (fresh[i])
			bpf_map_delete_elem(fd, entry_key(&e[i]));
	free(fresh);
	return err;
}

/*
 * A cgroup removed between resolving it and adding it is never seen by the
 * policy's cgroup_rmdir program: look again, drop such an entry and fail
 * (-ENOENT after one line).
 */
int entries_recheck(const char *cmd, int fd, const struct map_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!e[i].cg || cgroup_exists(e[i].cg->id, e[i].cg->path))
			continue;
		bpf_map_delete_elem(fd, &e[i].cg->id);
		p_err("%s: cgroup %s was removed meanwhile", cmd, e[i].cg->path);
		return -ENOENT;
	}
	return 0;
}
