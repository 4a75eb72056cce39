// SPDX-License-Identifier: GPL-2.0
/*
 * pins.c - oomctl's directory on bpffs and what is pinned in it.
 *
 *   <bpffs>/oomctl/              root-owned, 0700, not a symlink; flock()ed
 *   <bpffs>/oomctl/policy/       the attached policy: link_<prog>, map_<map>
 *   <bpffs>/oomctl/staging-PID   a policy being built, renamed into place
 *                              (bpffs forbids dots in names)
 *
 * A bare bpffs mount is 1777, so anyone could pre-create or squat the
 * directory: we check owner, mode and type on the open descriptor and then
 * only ever reach pins through /proc/self/fd/N/..., so a directory swapped
 * after the check is never used. Anyone who can write a map pin steers OOM
 * kills: pins are made 0600.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "oomctl.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/*
 * Open (with @create, make) <bpffs>/oomctl, check it and lock it: 0, also
 * when it does not exist and !@create (nothing attached: @pd->fd is -1),
 * or -errno after one line. A run opens it once, in its session.
 */
int pindir_open(struct pindir *pd, bool create)
{
	struct statfs sfs;
	struct stat st;
	int fd, err;

	pd->fd = -1;
	if (statfs(bpffs_dir, &sfs)) {
		err = -errno;
		p_err("bpffs directory %s: %s", bpffs_dir, strerror(-err));
		return err;
	}
	if (sfs.f_type != BPF_FS_MAGIC) {
		p_err("%s is not a bpffs mount (mount -t bpf bpf %s)", bpffs_dir,
		      bpffs_dir);
		return -ENOTDIR;
	}
	snprintf(pd->path, sizeof(pd->path), "%s/%s", bpffs_dir, PIN_SUBDIR);
	pd->created = false;
	if (create && mkdir(pd->path, 0700)) {
		if (errno != EEXIST) {
			err = -errno;
			p_err("cannot create %s: %s", pd->path, strerror(-err));
			return err;
		}
	} else if (create) {
		pd->created = true;
	}
	fd = open(pd->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT && !create)
			return 0;
		if (err == -ELOOP || err == -ENOTDIR)
			p_err("%s is not a directory (a symlink?); refusing to use it",
			      pd->path);
		else
			p_err("cannot open %s: %s", pd->path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || fstatfs(fd, &sfs)) {
		err = -errno;
		p_err("cannot stat %s: %s", pd->path, strerror(-err));
		goto err;
	}
	err = -EPERM;
	if (sfs.f_type != BPF_FS_MAGIC) {
		p_err("%s is not on bpffs; refusing to use it", pd->path);
		goto err;
	}
	if (st.st_uid != 0) {
		p_err("%s is owned by uid %u, not root; refusing to use it",
		      pd->path, st.st_uid);
		goto err;
	}
	if ((st.st_mode & 07777) != 0700) {
		/* Our own mkdir() was subject to the umask: fix only that. */
		if (!create || (st.st_mode & 07077) || fchmod(fd, 0700)) {
			p_err("%s has mode %04o, not 0700; refusing to use it",
			      pd->path, st.st_mode & 07777);
			goto err;
		}
	}
	/*
	 * Serialise concurrent oomctl runs; released when we exit. A flock is
	 * per open file: a run opens the directory once, in its session
	 * (apply's attach and detach use apply's), or it would wait for itself.
	 */
	if (flock(fd, LOCK_EX)) {
		err = -errno;
		p_err("cannot lock %s: %s", pd->path, strerror(-err));
		goto err;
	}
	test_stop_at(STEP_LOCKED);
	pd->fd = fd;
	return 0;
err:
	close(fd);
	return err;
}

void pindir_close(struct pindir *pd)
{
	if (pd->fd >= 0)
		close(pd->fd);
	pd->fd = -1;
}

/* A path to @rel inside the checked directory that cannot be redirected;
 * quiet: 0 or -ENAMETOOLONG.
 */
int pindir_fdpath(const struct pindir *pd, const char *rel, char *buf, size_t sz)
{
	int n = snprintf(buf, sz, "/proc/self/fd/%d/%s", pd->fd, rel);

	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}

int policy_present(const struct pindir *pd)
{
	struct stat st;

	return !fstatat(pd->fd, POLICY_SUBDIR, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

/* Unpin everything in @sub and remove it. Unpinning a link releases it.
 * Quiet: 0, or the last -errno.
 */
int remove_pins(const struct pindir *pd, const char *sub)
{
	int dfd = openat(pd->fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (unlinkat(dfd, de->d_name, 0) && errno != ENOENT)
			err = -errno;
		test_stop_at(STEP_PIN_REMOVED);
	}
	closedir(d);
	if (unlinkat(pd->fd, sub, AT_REMOVEDIR) && errno != ENOENT)
		err = -errno;
	test_stop_at(STEP_UNPINNED);
	return err;
}

/*
 * Staging and detaching directories belong to a run that held the lock and
 * died (we hold it now): whatever they pin is half a policy, a replaced one
 * or one being detached. Unpinning releases it.
 */
void cleanup_stale(const struct pindir *pd)
{
	int dfd = dup(pd->fd);
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "staging-", 8) ||
		    !strncmp(de->d_name, "detaching-", 10))
			remove_pins(pd, de->d_name);
	}
	closedir(d);
}

static int obj_info(int fd, struct pinned_obj *o)
{
	struct bpf_link_info li = {};
	struct bpf_map_info mi = {};
	struct bpf_prog_info pi = {};
	__u32 len;

	if (o->is_link) {
		len = sizeof(li);
		if (bpf_obj_get_info_by_fd(fd, &li, &len))
			return -errno;
		o->id = li.id;
		o->prog_id = li.prog_id;
		int pfd = bpf_prog_get_fd_by_id(li.prog_id);

		if (pfd >= 0) {
			len = sizeof(pi);
			if (!bpf_obj_get_info_by_fd(pfd, &pi, &len))
				snprintf(o->obj_name, sizeof(o->obj_name), "%s", pi.name);
			close(pfd);
		}
		return 0;
	}
	len = sizeof(mi);
	if (bpf_obj_get_info_by_fd(fd, &mi, &len))
		return -errno;
	o->id = mi.id;
	snprintf(o->obj_name, sizeof(o->obj_name), "%s", mi.name);
	return 0;
}

static int cmp_pin(const void *a, const void *b)
{
	return strcmp(((const struct pinned_obj *)a)->name,
		      ((const struct pinned_obj *)b)->name);
}

/* The objects pinned in @sub, sorted by pin name, with their ids; quiet. */
int list_pins(const struct pindir *pd, const char *sub, struct pinned_obj **out,
	      size_t *n)
{
	int dfd = openat(pd->fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct pinned_obj *v = NULL;
	struct dirent *de;
	size_t cnt = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char rel[PATH_MAX], path[PATH_MAX];
		struct pinned_obj o = {};
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(o.name, sizeof(o.name), "%s", de->d_name);
		o.is_link = !strncmp(de->d_name, PIN_LINK_PREFIX, strlen(PIN_LINK_PREFIX));
		snprintf(rel, sizeof(rel), "%s/%s", sub, de->d_name);
		if (pindir_fdpath(pd, rel, path, sizeof(path)))
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		obj_info(fd, &o);
		close(fd);
		v = realloc(v, (cnt + 1) * sizeof(*v));
		if (!v) {
			closedir(d);
			return -ENOMEM;
		}
		v[cnt++] = o;
	}
	closedir(d);
	qsort(v, cnt, sizeof(*v), cmp_pin);
	*out = v;
	*n = cnt;
	return 0;
}

/*
 * A pin's path relative to the pin directory: @dir/map_NAME for a map,
 * @dir/link_NAME for a program's link (@dir: policy, staging-PID, ...).
 * The one place these names are made; list_pins() reads them back.
 */
void pin_rel(char *buf, size_t sz, const char *dir, enum pin_kind kind, const char *name)
{
	snprintf(buf, sz, "%s/%s%s", dir, kind == PIN_LINK ? PIN_LINK_PREFIX : PIN_MAP_PREFIX,
		 name);
}
