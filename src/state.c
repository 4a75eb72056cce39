// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - what is attached, read back from the pinned maps: the config
 * written at attach time says which policy it is; the state map holds the
 * counters and the last victim.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/* 0 with a->present false when nothing is attached; -1 after p_err. */
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
		return -1;
	}
	if (a->cfg.abi_version != OOMCTL_ABI_VERSION ||
	    !(a->policy = policy_of_config(&a->cfg, &a->own))) {
		p_err("the policy in %s/" POLICY_SUBDIR " was attached by an incompatible oomctl "
		      "(abi %u); detach it first", pd->path, a->cfg.abi_version);
		return -1;
	}
	a->present = true;
	return 0;
}

/*
 * The fd of @want's own map, for a map command. Fails with one line when
 * no policy, or another policy, is attached.
 */
int open_policy_map(const struct pindir *pd, const struct policy *want,
		    const char *cmd)
{
	struct attached a;
	char rel[256], path[PATH_MAX];
	int fd;

	if (read_attached(pd, &a))
		return -1;
	if (!a.present) {
		p_err("%s: no %s policy is attached (oomctl attach %s)", cmd,
		      want->name, want->name);
		return -1;
	}
	if (strcmp(a.policy->name, want->name) || !policy_same(a.policy, want)) {
		p_err("%s: the attached policy is %s, not %s", cmd, a.policy->name,
		      want->name);
		return -1;
	}
	pin_rel(rel, sizeof(rel), POLICY_SUBDIR, PIN_MAP, want->map);
	if (pindir_fdpath(pd, rel, path, sizeof(path)) ||
	    (fd = bpf_obj_get(path)) < 0) {
		p_err("%s: cannot open the %s map in %s/" POLICY_SUBDIR ": %s", cmd,
		      want->name, pd->path, strerror(errno));
		return -1;
	}
	return fd;
}

/*
 * Open the pin directory and read what is attached, for a command that
 * needs a policy: 0, or -1 after one line (none attached, or the error).
 */
int open_attached(const char *cmd, struct pindir *pd, struct attached *a)
{
	int err = pindir_open(pd, false);

	if (err == -ENOENT || (!err && !policy_present(pd))) {
		p_err("%s: no oomctl policy is attached (nothing pinned in %s/%s/%s)",
		      cmd, bpffs_dir, PIN_SUBDIR, POLICY_SUBDIR);
		return -1;
	}
	if (err || read_attached(pd, a))
		return -1;
	return 0;
}

int open_pinned(const struct pindir *pd, const char *cmd, enum pin_kind kind,
		const char *name)
{
	char rel[256], path[PATH_MAX];
	int fd;

	pin_rel(rel, sizeof(rel), POLICY_SUBDIR, kind, name);
	if (pindir_fdpath(pd, rel, path, sizeof(path)) || (fd = bpf_obj_get(path)) < 0) {
		p_err("%s: cannot open %s/%s: %s", cmd, pd->path, rel, strerror(errno));
		return -1;
	}
	return fd;
}
