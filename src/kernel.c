// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the OOM hooks as the running kernel has them: their BTF ids
 * (from /sys/kernel/btf/vmlinux), and every BPF link attached to them,
 * ours or not. fmod_ret programs stack silently, so this is how attach
 * refuses to pile a second policy on top of a foreign one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "oomctl.h"

const char *const hook_names[NR_HOOKS] = {
	[HOOK_EVALUATE] = "bpf_oom_evaluate_task",
	[HOOK_NAME] = "bpf_set_policy_name",
	[HOOK_KILL] = "oom_kill_process",
	[HOOK_KILL_TASK] = "__oom_kill_process",
	[HOOK_FAIL] = "select_bad_process_end",
	[HOOK_PAUSE] = "memcg_oom_pause",
	[HOOK_RESUME] = "memcg_oom_resume",
};

/*
 * The hooks' BTF ids: 0, or -errno after one line (no BTF, a hook missing).
 * tp_btf programs attach to the tracepoint's btf_trace_<name> typedef.
 */
int hooks_find(struct hooks *h)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err;

	memset(h, 0, sizeof(*h));
	if (!btf) {
		err = errno;
		p_err("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s — "
		      "boot the kernel built from kernel/", strerror(err));
		return -err;
	}
	for (int i = 0; i < NR_HOOKS; i++) {
		char name[128];
		int kind = BTF_KIND_FUNC;

		snprintf(name, sizeof(name), "%s", hook_names[i]);
		if (i >= HOOK_FIRST_TP) {
			snprintf(name, sizeof(name), "btf_trace_%s", hook_names[i]);
			kind = BTF_KIND_TYPEDEF;
		}
		err = btf__find_by_name_kind(btf, name, kind);
		h->btf_id[i] = err > 0 ? err : 0;
	}
	btf__free(btf);
	for (int i = 0; i < NR_HOOKS; i++) {
		if (!h->btf_id[i]) {
			p_err("this kernel lacks %s — boot the kernel built from kernel/",
			      hook_names[i]);
			return -ENOENT;
		}
	}
	return 0;
}

static void prog_name_of(__u32 prog_id, char name[16])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id);

	name[0] = 0;
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		snprintf(name, 16, "%s", info.name);
	close(fd);
}

/* Which hook a link is attached to; quiet: -ENOENT for none, or -errno. */
static int link_hook(const struct hooks *h, int fd, __u32 *prog_id)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char tp[64] = "";

	info.raw_tracepoint.tp_name = (__u64)(unsigned long)tp;
	info.raw_tracepoint.tp_name_len = sizeof(tp);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*prog_id = info.prog_id;
	if (info.type == BPF_LINK_TYPE_TRACING) {
		for (int i = 0; i < HOOK_FIRST_TP; i++)
			if (info.tracing.target_btf_id == (__u32)h->btf_id[i])
				return i;
	}
	/* tp_btf programs get a raw_tracepoint link named by tracepoint */
	if (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT)
		for (int i = HOOK_FIRST_TP; i < NR_HOOKS; i++)
			if (!strcmp(tp, hook_names[i]))
				return i;
	return -ENOENT;
}

/*
 * Every link on one of the OOM hooks: 0, or -errno after one line. Links
 * can vanish between get_next_id and get_fd_by_id: ENOENT there is not an
 * error.
 */
int hooked_links(const struct hooks *h, struct hooked_link **out, size_t *n)
{
	struct hooked_link *v = NULL, *more;
	__u32 id = 0;
	size_t cnt = 0;
	int err;

	while (!bpf_link_get_next_id(id, &id)) {
		int fd = bpf_link_get_fd_by_id(id), hook;
		__u32 prog_id = 0;

		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			err = -errno;
			p_err("cannot inspect BPF link %u: %s", id, strerror(-err));
			free(v);
			return err;
		}
		hook = link_hook(h, fd, &prog_id);
		close(fd);
		if (hook < 0)
			continue;
		more = realloc(v, (cnt + 1) * sizeof(*v));
		if (!more) {
			p_err("out of memory");
			free(v);
			return -ENOMEM;
		}
		v = more;
		v[cnt] = (struct hooked_link){ .link_id = id, .prog_id = prog_id,
					       .hook = hook };
		prog_name_of(prog_id, v[cnt].prog_name);
		cnt++;
	}
	if (errno != ENOENT) {
		err = -errno;
		p_err("cannot list BPF links: %s", strerror(-err));
		free(v);
		return err;
	}
	*out = v;
	*n = cnt;
	return 0;
}
