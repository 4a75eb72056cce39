// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - cgroup v2 directories and their ids, after the kernel
 * selftests' cgroup_util.c. A cgroup v2 id is its kernfs node id, which is
 * exactly the file handle name_to_handle_at() returns; ids are never reused.
 * The filesystem magic is checked because the kernel would happily give a
 * cgroup v1 directory a handle too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "oomctl.h"

/*
 * Where cgroup2 is mounted: /sys/fs/cgroup when it is a cgroup2 mount (the
 * usual place, checked with one statfs(): a script's every call needs it),
 * else the first cgroup2 mount in /proc/self/mountinfo, or NULL.
 */
const char *cgroup2_mount(void)
{
	static char mnt[PATH_MAX];
	struct statfs sfs;
	char line[4096];
	FILE *f;

	if (mnt[0])
		return mnt;
	if (!statfs("/sys/fs/cgroup", &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup");
		return mnt;
	}
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), path[PATH_MAX], fstype[64];

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2"))
			continue;
		/* id parent major:minor root mountpoint ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", path) == 1) {
			snprintf(mnt, sizeof(mnt), "%s", path);
			break;
		}
	}
	fclose(f);
	return mnt[0] ? mnt : NULL;
}

int cgroup_id_of(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(__u64))
		return -EINVAL;
	*id = h.id;
	return 0;
}

/* Is @path still the cgroup with @id (not removed, not recreated)? */
int cgroup_exists(__u64 id, const char *path)
{
	__u64 now = 0;

	return !cgroup_id_of(path, &now) && now == id;
}

/*
 * CGROUP is a cgroup v2 directory: an absolute path, or a path relative to
 * the cgroup2 mount. Fills @cg and returns 0; else -ENOENT when there is no
 * such directory, -EINVAL otherwise, with the reason in @why (quiet).
 */
int cgroup_lookup(const char *arg, struct cgroup_ref *cg, char *why, size_t wsz)
{
	const char *mnt = cgroup2_mount();
	char path[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	size_t ml;
	int err;

	memset(cg, 0, sizeof(*cg));
	if (arg[0] == '/') {
		snprintf(path, sizeof(path), "%s", arg);
	} else {
		if (!mnt) {
			snprintf(why, wsz, "no cgroup2 filesystem is mounted to resolve it in");
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/%s", mnt, arg);
	}
	if (stat(path, &st)) {
		err = errno;
		snprintf(why, wsz, "%s", err == ENOENT ?
			 "no such cgroup (the directory does not exist)" : strerror(err));
		return err == ENOENT ? -ENOENT : -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, wsz, "not a directory (a cgroup is a directory on cgroup2)");
		return -EINVAL;
	}
	if (statfs(path, &sfs)) {
		snprintf(why, wsz, "%s", strerror(errno));
		return -EINVAL;
	}
	if (sfs.f_type == CGROUP_SUPER_MAGIC) {
		snprintf(why, wsz, "a cgroup v1 directory; oomctl needs cgroup v2");
		return -EINVAL;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(why, wsz, "not on a cgroup2 filesystem");
		return -EINVAL;
	}
	if (!realpath(path, cg->path)) {
		snprintf(why, wsz, "%s", strerror(errno));
		return -EINVAL;
	}
	err = cgroup_id_of(cg->path, &cg->id);
	if (err) {
		snprintf(why, wsz, "cannot get its id: %s", strerror(-err));
		return -EINVAL;
	}
	ml = mnt ? strlen(mnt) : 0;
	if (mnt && !strncmp(cg->path, mnt, ml) &&
	    (cg->path[ml] == '/' || !cg->path[ml]))
		snprintf(cg->cgpath, sizeof(cg->cgpath), "%s",
			 cg->path[ml] ? cg->path + ml : "/");
	else
		snprintf(cg->cgpath, sizeof(cg->cgpath), "%s", cg->path);
	return 0;
}

/* cgroup_lookup(), or its -errno after one line naming the bad CGROUP. */
int cgroup_resolve(const char *arg, struct cgroup_ref *cg)
{
	char why[256];
	int err = cgroup_lookup(arg, cg, why, sizeof(why));

	if (err)
		p_err("cgroup '%s': %s", arg, why);
	return err;
}

/* id -> path for every cgroup under the cgroup2 mount, built on demand. */
struct cgroup_map {
	size_t n;
	struct {
		__u64 id;
		char *path;
	} *v;
};

static struct cgroup_map *walking;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	__u64 id;

	(void)st;
	(void)ftw;
	if (type != FTW_D || cgroup_id_of(path, &id))
		return 0;
	walking->v = realloc(walking->v, (walking->n + 1) * sizeof(*walking->v));
	if (!walking->v)
		return -ENOMEM;	/* nftw() stops */
	walking->v[walking->n].id = id;
	walking->v[walking->n].path = strdup(path);
	walking->n++;
	return 0;
}

struct cgroup_map *cgroup_map_build(void)
{
	const char *mnt = cgroup2_mount();
	struct cgroup_map *m = calloc(1, sizeof(*m));

	if (!m || !mnt)
		return m;
	walking = m;
	nftw(mnt, walk_one, 16, FTW_PHYS | FTW_MOUNT);
	walking = NULL;
	return m;
}

/* The filesystem path (or with @cgpath the hierarchy path) of @id; NULL
 * when no such cgroup exists.
 */
const char *cgroup_map_path(struct cgroup_map *m, __u64 id, bool cgpath)
{
	const char *mnt = cgroup2_mount();

	for (size_t i = 0; m && i < m->n; i++) {
		if (m->v[i].id != id)
			continue;
		if (!cgpath)
			return m->v[i].path;
		return m->v[i].path[strlen(mnt)] ? m->v[i].path + strlen(mnt) : "/";
	}
	return NULL;
}

void cgroup_map_free(struct cgroup_map *m)
{
	for (size_t i = 0; m && i < m->n; i++)
		free(m->v[i].path);
	if (m)
		free(m->v);
	free(m);
}
