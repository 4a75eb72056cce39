// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - what is attached, read back from the pinned maps: the config
 * written at attach time says which policy it is; the state map holds the
 * counters and the last victim.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

static int read_pinned(const struct pindir *pd, const char *map, void *val)
{
	char rel[256], path[PATH_MAX];
	__u32 zero = 0;
	int fd, err;

	pin_rel(rel, sizeof(rel), POLICY_SUBDIR, PIN_MAP, map);
	if (pindir_fdpath(pd, rel, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = bpf_map_lookup_elem(fd, &zero, val) ? -errno : 0;
	close(fd);
	return err;
}

/*
 * 0 with a->present false when nothing is attached (@pd not open: no pin
 * directory); -errno after one line.
 */
int read_attached(const struct pindir *pd, struct attached *a)
{
	int err;

	memset(a, 0, sizeof(*a));
	if (pd->fd < 0 || !policy_present(pd))
		return 0;
	err = read_pinned(pd, "oomctl_config", &a->cfg);
	if (!err)
		err = read_pinned(pd, "oomctl_state", &a->state);
	if (err) {
		p_err("cannot read the attached policy's maps in %s/" POLICY_SUBDIR ": %s",
		      pd->path, strerror(-err));
		return err;
	}
	if (a->cfg.abi_version != OOMCTL_ABI_VERSION ||
	    !(a->policy = policy_of_config(&a->cfg, &a->own))) {
		p_err("the policy in %s/" POLICY_SUBDIR " was attached by an incompatible oomctl "
		      "(abi %u); detach it first", pd->path, a->cfg.abi_version);
		return -EPROTO;
	}
	a->present = true;
	return 0;
}
