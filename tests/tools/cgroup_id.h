/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup_id.h - a cgroup v2's id for the test and bench loaders: its
 * kernfs node id, which is the file handle name_to_handle_at() returns
 * (oomctl's own is cgroup_id_of() in src/cgroup.c, with the checks a
 * user's input needs).
 */
#ifndef OOMCTL_TESTS_CGROUP_ID_H
#define OOMCTL_TESTS_CGROUP_ID_H

/* name_to_handle_at(): the includer defines _GNU_SOURCE first. */
#include <fcntl.h>
#include <linux/types.h>

static inline int cgroup_id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -1;
	*id = h.id;
	return 0;
}

#endif
