// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - a command's one way to the attached policy: the pin directory
 * opened, checked and locked once, what is attached read once under that
 * lock, and the pinned maps and links the command asks for opened once.
 * attach and detach work in the session of their caller (apply), so a run
 * takes the lock once and never reads the policy back twice.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "oomctl.h"

/*
 * Open the pin directory (@flags SESSION_CREATE: make it), lock it, release
 * what a killed run left (SESSION_CLEAN) and read what is attached. Without
 * SESSION_CREATE a missing directory is not an error: nothing is attached.
 * A session that holds the directory already is only checked against
 * SESSION_POLICY; one that found none opens it now. 0, or -errno after one
 * line.
 */
int session_open(struct session *s, unsigned int flags)
{
	int err;

	if (s->pd.fd < 0) {
		err = pindir_open(&s->pd, flags & SESSION_CREATE);
		if (err)
			return err;
		if (s->pd.fd >= 0 && (flags & SESSION_CLEAN))
			cleanup_stale(&s->pd);
		err = read_attached(&s->pd, &s->a);
		if (err)
			return err;
	}
	if ((flags & SESSION_POLICY) && !s->a.present) {
		p_err("%s: no oomctl policy is attached (nothing pinned in %s/%s/%s)",
		      s->cmd, bpffs_dir, PIN_SUBDIR, POLICY_SUBDIR);
		return -ENOENT;
	}
	return 0;
}

/*
 * The attached policy's pinned map or link, by its map's or program's
 * name (pin_rel() makes the pin's name), opened the first time it is asked
 * for and owned by the session. Quiet: the fd, or -errno.
 */
int session_fd(struct session *s, enum pin_kind kind, const char *name)
{
	char rel[256], path[PATH_MAX];
	int fd;

	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i].kind == kind && !strcmp(s->fds[i].name, name))
			return s->fds[i].fd;
	if (s->nfds == SESSION_MAX_FDS)
		return -EMFILE;
	pin_rel(rel, sizeof(rel), POLICY_SUBDIR, kind, name);
	if (s->pd.fd < 0 || pindir_fdpath(&s->pd, rel, path, sizeof(path)))
		return -ENOENT;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	s->fds[s->nfds++] = (typeof(s->fds[0])){ .kind = kind, .name = name, .fd = fd };
	return fd;
}

/* session_fd(), or -errno after one line naming the pin. */
int session_pin(struct session *s, enum pin_kind kind, const char *name)
{
	char rel[256];
	int fd = session_fd(s, kind, name);

	if (fd >= 0)
		return fd;
	pin_rel(rel, sizeof(rel), POLICY_SUBDIR, kind, name);
	p_err("%s: cannot open %s/%s: %s", s->cmd, s->pd.path, rel, strerror(-fd));
	return fd;
}

/*
 * The fd of @want's own map, for a map command. Fails with one line when
 * no policy, or another policy, is attached.
 */
int session_policy_map(struct session *s, const struct policy *want)
{
	const struct attached *a = &s->a;
	int fd;

	if (!a->present) {
		p_err("%s: no %s policy is attached (oomctl attach %s)", s->cmd,
		      want->name, want->name);
		return -ENOENT;
	}
	if (strcmp(a->policy->name, want->name) || !policy_same(a->policy, want)) {
		p_err("%s: the attached policy is %s, not %s", s->cmd, a->policy->name,
		      want->name);
		return -ESRCH;
	}
	fd = session_fd(s, PIN_MAP, want->map);
	if (fd < 0)
		p_err("%s: cannot open the %s map in %s/" POLICY_SUBDIR ": %s", s->cmd,
		      want->name, s->pd.path, strerror(-fd));
	return fd;
}

/*
 * Close the fds the session opened: the pins they came from were renamed
 * or unpinned (attach, detach), and an fd held would keep its object alive.
 */
void session_drop_fds(struct session *s)
{
	while (s->nfds)
		close(s->fds[--s->nfds].fd);
}

/* Release the lock, keeping the fds and what was read (events streams). */
void session_unlock(struct session *s)
{
	pindir_close(&s->pd);
}

void session_close(struct session *s)
{
	session_drop_fds(s);
	pindir_close(&s->pd);
}
