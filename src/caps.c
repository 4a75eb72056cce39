// SPDX-License-Identifier: GPL-2.0
/*
 * caps.c - check capabilities up front, so that a missing one is one clear
 * line instead of an EPERM from deep inside libbpf.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "oomctl.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool have_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

/*
 * NEED_BPF: bpf() itself (map commands): CAP_BPF or CAP_SYS_ADMIN.
 * NEED_ADMIN: looking objects up by id (attach, detach, status walk every
 * link to find programs on the OOM hooks) needs CAP_SYS_ADMIN, which also
 * covers loading (otherwise CAP_BPF + CAP_PERFMON).
 */
int need_caps(const char *cmd, enum caps_need need)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, d)) {
		p_err("%s: cannot read this process's capabilities", cmd);
		return -errno;
	}
	if (have_cap(d, CAP_SYS_ADMIN))
		return 0;
	if (need == NEED_BPF && have_cap(d, CAP_BPF))
		return 0;
	if (need == NEED_ADMIN)
		p_err("%s: needs root (CAP_SYS_ADMIN: it looks BPF objects up by id)", cmd);
	else
		p_err("%s: needs root (CAP_BPF or CAP_SYS_ADMIN)", cmd);
	return -EPERM;
}
