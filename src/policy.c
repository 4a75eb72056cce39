// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the policies oomctl knows: the bundled ones, whose objects are
 * embedded (bpftool gen skeleton, one per word of OOMCTL_POLICIES in
 * src/oomctl.mk), and a policy object given as a file. Each describes
 * itself in its OOMCTL_POLICY() section (bpf-policies/oomctl.h), read here:
 * nothing else in oomctl names a policy or knows what it keeps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "oomctl.h"
#include "bundled.h"	/* generated: OOMCTL_BUNDLED(X), the skeletons */
#ifdef OOMCTL_TEST_POLICY
#include "refused.skel.h"
#define OOMCTL_ALL(X) OOMCTL_BUNDLED(X) X(refused_bpf)
#else
#define OOMCTL_ALL(X) OOMCTL_BUNDLED(X)
#endif

#define ELF_BYTES(skel) { #skel, skel##__elf_bytes },
static const struct {
	const char *obj_name;	/* the name its skeleton would give it */
	const void *(*bytes)(size_t *sz);
} embedded[] = { OOMCTL_ALL(ELF_BYTES) };
#define NR_EMBEDDED (sizeof(embedded) / sizeof(embedded[0]))

static struct policy bundled[NR_EMBEDDED];
const struct policy *policies = bundled;
size_t nr_policies;

#define STR_OK(f) (memchr((f), '\0', sizeof(f)) != NULL)

/*
 * Is @d a description oomctl can act on? NULL, or what is wrong with it,
 * for "FILE: ..." messages.
 */
static const char *desc_problem(const struct oomctl_policy_desc *d)
{
	bool cgroups = d->entry_kind == OOMCTL_ENTRIES_CGROUP_VALUE ||
		       d->entry_kind == OOMCTL_ENTRIES_CGROUP_SET;

	if (d->abi_version != OOMCTL_ABI_VERSION)
		return "it was built for another oomctl ABI version";
	if (!STR_OK(d->name) || !STR_OK(d->summary) || !STR_OK(d->entry_map) ||
	    !STR_OK(d->entry) || !STR_OK(d->entries) || !STR_OK(d->rule) ||
	    !STR_OK(d->rule_text) || !STR_OK(d->ref_key))
		return "a string of its description is not NUL-terminated";
	if (!*d->name || strspn(d->name, "abcdefghijklmnopqrstuvwxyz0123456789-_") !=
	    strlen(d->name))
		return "its name is empty or not made of a-z, 0-9, '-' and '_'";
	if (d->entry_kind >= OOMCTL_NR_ENTRY_KINDS)
		return "its entry kind is unknown";
	if (d->flags & ~OOMCTL_DESC_FLAGS)
		return "its description has unknown flags";
	if (d->entry_kind != OOMCTL_ENTRIES_NONE &&
	    (!*d->entry_map || !*d->entry || !*d->entries))
		return "it keeps entries but does not name their map, word and key";
	if (d->entry_kind == OOMCTL_ENTRIES_CGROUP_VALUE && d->value_min > d->value_max)
		return "its value range is empty";
	if (((d->flags & OOMCTL_DESC_DEFAULT) &&
	     d->entry_kind != OOMCTL_ENTRIES_CGROUP_VALUE) ||
	    ((d->flags & OOMCTL_DESC_SCOPING) &&
	     d->entry_kind != OOMCTL_ENTRIES_CGROUP_SET) ||
	    ((d->flags & (OOMCTL_DESC_REF_SET_ON | OOMCTL_DESC_EXACT)) && !cgroups))
		return "its flags do not fit its entry kind";
	return NULL;
}

/*
 * The OOMCTL_DESC_SEC section of the ELF image @buf: 0; -ENOEXEC, not ELF;
 * -ENOENT, no such section; -EBADMSG, a section of another size.
 */
static int read_desc(const void *buf, size_t sz, struct oomctl_policy_desc *d)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = -ENOENT;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, sz);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		err = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, OOMCTL_DESC_SEC))
			continue;
		data = elf_getdata(scn, NULL);
		err = data && data->d_buf && data->d_size == sizeof(*d) ? 0 : -EBADMSG;
		if (!err)
			memcpy(d, data->d_buf, sizeof(*d));
		break;
	}
out:
	if (elf)
		elf_end(elf);
	return err;
}

/* The fields the rest of oomctl reads, from the description. */
static void policy_from_desc(struct policy *p)
{
	const struct oomctl_policy_desc *d = &p->desc;

	p->name = d->name;
	p->summary = d->summary;
	p->kind = d->entry_kind;
	p->map = p->kind ? d->entry_map : NULL;
	p->entries = d->entries;
	p->has_default_prio = d->flags & OOMCTL_DESC_DEFAULT;
	p->has_max_pause = d->flags & OOMCTL_DESC_MAX_PAUSE;
	p->cgroup_opt = p->kind == OOMCTL_ENTRIES_CGROUP_SET ? d->entry : NULL;
	p->scoping = d->flags & OOMCTL_DESC_SCOPING;
}

/*
 * The bundled policies, read once; a broken one is a build error: 0, or
 * -errno after one line.
 */
int policies_init(void)
{
	if (nr_policies)
		return 0;
	for (size_t i = 0; i < NR_EMBEDDED; i++) {
		struct policy *p = &bundled[i];
		const char *why;

		p->elf = embedded[i].bytes(&p->elf_sz);
		p->obj_name = embedded[i].obj_name;
		why = read_desc(p->elf, p->elf_sz, &p->desc) ?
		      "no readable " OOMCTL_DESC_SEC " section" : desc_problem(&p->desc);
		if (why) {
			p_err("bundled policy %s is broken: %s", p->obj_name, why);
			return -ENOEXEC;
		}
		policy_from_desc(p);
	}
	nr_policies = NR_EMBEDDED;
	return 0;
}

const struct policy *policy_by_name(const char *name)
{
	for (size_t i = 0; i < nr_policies; i++)
		if (!strcmp(policies[i].name, name))
			return &policies[i];
	return NULL;
}

/* "cgprio, pid, rss-slice or abort-all", for messages. */
const char *policy_names(void)
{
	static char buf[512];
	size_t n = 0;

	if (*buf)
		return buf;
	for (size_t i = 0; i < nr_policies && n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
			      !i ? "" : i + 1 == nr_policies ? " or " : ", ",
			      policies[i].name);
	return buf;
}

/*
 * The bundled policies that have @has (the ones an option or directive
 * applies to), as "rss-slice" or "cgprio and pid".
 */
const char *policies_with(bool (*has)(const struct policy *, const char *),
			  const char *arg)
{
	static char buf[512];
	size_t n = 0, k = 0;

	*buf = '\0';
	for (size_t i = 0; i < nr_policies && n < sizeof(buf); i++)
		if (has(&policies[i], arg))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", k++ ? " and " : "",
				      policies[i].name);
	return buf;
}

/* What options and directives apply to, from the descriptions. */
bool policy_has_entry(const struct policy *p, const char *word)
{
	return p->kind && !strcmp(p->desc.entry, word);
}

bool policy_has_default(const struct policy *p, const char *word)
{
	(void)word;
	return p->has_default_prio;
}

bool policy_has_max_pause(const struct policy *p, const char *word)
{
	(void)word;
	return p->has_max_pause;
}

/*
 * The options of attach (and directives of apply) that @p's description
 * gives it, beyond --name and --replace: into @opt, their count.
 */
size_t policy_attach_options(const struct policy *p, const char *opt[4])
{
	size_t n = 0;

	if (p->has_default_prio)
		opt[n++] = "--default-prio";
	if (p->cgroup_opt && !strcmp(p->cgroup_opt, "slice"))
		opt[n++] = "--slice";
	if (p->cgroup_opt && !strcmp(p->cgroup_opt, "cgroup"))
		opt[n++] = "--cgroup";
	if (p->has_max_pause)
		opt[n++] = "--max-pause";
	return n;
}

/* Two descriptions of one policy: same entries, same rule. */
bool policy_same(const struct policy *a, const struct policy *b)
{
	return a && b && !memcmp(&a->desc, &b->desc, sizeof(a->desc));
}

/*
 * A policy read back from an attached policy's config: the bundled one it
 * describes, or @own filled from the description.
 */
const struct policy *policy_of_config(const struct oomctl_config *cfg,
				      struct policy *own)
{
	memset(own, 0, sizeof(*own));
	own->desc = cfg->desc;
	if (desc_problem(&own->desc))
		return NULL;
	if (cfg->source == OOMCTL_SOURCE_BUNDLED)
		for (size_t i = 0; i < nr_policies; i++)
			if (policy_same(&policies[i], own))
				return &policies[i];
	own->from_file = cfg->source == OOMCTL_SOURCE_FILE;
	policy_from_desc(own);
	return own;
}

/*
 * A policy object from the file @path, for attach and apply: read and its
 * description checked; the object is opened (not loaded) by policy_open().
 * 0, or -errno after one line naming the file.
 */
int policy_from_file(const char *cmd, const char *path, struct policy *p)
{
	const char *why = NULL, *base;
	struct stat st;
	void *buf = NULL;
	ssize_t n = 0;
	int fd, err;

	memset(p, 0, sizeof(*p));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		p_err("%s: cannot read policy object %s: %s", cmd, path, strerror(-err));
		goto fail;
	}
	err = -ENOEXEC;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (64 << 20)) {
		p_err("%s: %s is not a policy object (not a regular file of 1 byte "
		      "to 64 MiB)", cmd, path);
		goto fail;
	}
	buf = malloc(st.st_size);
	if (!buf || (n = read(fd, buf, st.st_size)) != st.st_size) {
		err = n < 0 || !buf ? -errno : -EIO;
		p_err("%s: cannot read policy object %s: %s", cmd, path,
		      n < 0 || !buf ? strerror(-err) : "short read");
		goto fail;
	}
	err = read_desc(buf, st.st_size, &p->desc);
	if (err == -ENOEXEC)
		why = "not an ELF object: build a policy with clang -target bpf";
	else if (err == -ENOENT)
		why = "no " OOMCTL_DESC_SEC " section: not an oomctl policy (declare one "
		      "with OOMCTL_POLICY(), see oomctl-policies(7))";
	else if (err)
		why = "its " OOMCTL_DESC_SEC " section is not the size this oomctl reads: "
		      "it was built for another oomctl ABI version";
	else
		why = desc_problem(&p->desc);
	if (why) {
		p_err("%s: %s: %s", cmd, path, why);
		err = -ENOEXEC;
		goto fail;
	}
	close(fd);
	p->elf = buf;
	p->elf_sz = st.st_size;
	p->path = path;
	p->from_file = true;
	/* As libbpf names an object it opens from a file: up to the first '.'. */
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	snprintf(p->obj_name_buf, sizeof(p->obj_name_buf), "%.*s",
		 (int)strcspn(base, "."), base);
	p->obj_name = *p->obj_name_buf ? p->obj_name_buf : NULL;
	policy_from_desc(p);
	return 0;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return err;
}

void policy_free(struct policy *p)
{
	if (p->from_file && p->path)
		free((void *)p->elf);
	p->elf = NULL;
}

/* @p's object, opened from its bytes; NULL with errno set. */
struct bpf_object *policy_open(const struct policy *p)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = p->obj_name);
	struct bpf_object *obj;

	obj = bpf_object__open_mem(p->elf, p->elf_sz, &opts);
	return obj;
}

#define COUNT(skel) + 1
#define NR_BUNDLED (0 OOMCTL_BUNDLED(COUNT))

/* The sections of the bundled policies' programs, read once. */
#define MAX_PROGS 32
static struct {
	char sec[MAX_PROGS][64];
	size_t n;
} bundled_secs[NR_BUNDLED];

static int read_bundled_sections(void)
{
	static bool done;

	for (size_t i = 0; i < NR_BUNDLED && !done; i++) {
		struct bpf_object *obj = policy_open(&bundled[i]);
		struct bpf_program *prog;

		if (!obj)
			return -errno;
		bpf_object__for_each_program(prog, obj)
			if (bundled_secs[i].n < MAX_PROGS)
				snprintf(bundled_secs[i].sec[bundled_secs[i].n++], 64, "%s",
					 bpf_program__section_name(prog));
		bpf_object__close(obj);
	}
	done = true;
	return 0;
}

/* Does the bundled policy @i have a program in section @sec? */
static bool bundled_has_section(size_t i, const char *sec)
{
	for (size_t j = 0; j < bundled_secs[i].n; j++)
		if (!strcmp(bundled_secs[i].sec[j], sec))
			return true;
	return false;
}

static bool object_has_section(struct bpf_object *obj, const char *sec)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
		if (!strcmp(bpf_program__section_name(prog), sec))
			return true;
	return false;
}

/*
 * A policy object from a file may attach only where the bundled policies
 * do (the OOM hooks, and the tracepoints that keep their maps clean), and
 * must have what every one of them has (the programs of policy.bpf.h, that
 * oomctl's commands read): NULL, or what is wrong, into @buf.
 */
const char *policy_programs_problem(struct bpf_object *obj, char *buf, size_t sz)
{
	struct bpf_program *prog;
	size_t nevaluate = 0;

	if (read_bundled_sections())
		return "cannot open a bundled policy to compare";
	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);
		bool known = false;

		for (size_t i = 0; i < NR_BUNDLED && !known; i++)
			known = bundled_has_section(i, sec);
		if (!known) {
			snprintf(buf, sz, "program %s attaches to %s, not to an OOM hook "
				 "oomctl knows", bpf_program__name(prog), sec);
			return buf;
		}
		nevaluate += bpf_program__expected_attach_type(prog) == BPF_MODIFY_RETURN;
	}
	if (nevaluate != 1) {
		snprintf(buf, sz, "it has %zu programs on bpf_oom_evaluate_task; want 1",
			 nevaluate);
		return buf;
	}
	/* What every bundled policy has (policy.bpf.h), this one needs too. */
	for (size_t j = 0; j < bundled_secs[0].n; j++) {
		const char *sec = bundled_secs[0].sec[j];
		bool everywhere = true;

		for (size_t i = 1; i < NR_BUNDLED && everywhere; i++)
			everywhere = bundled_has_section(i, sec);
		if (everywhere && !object_has_section(obj, sec)) {
			snprintf(buf, sz, "it has no program in %s: build it on "
				 "oomctl/policy.bpf.h", sec);
			return buf;
		}
	}
	return NULL;
}
