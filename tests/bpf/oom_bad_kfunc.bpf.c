// SPDX-License-Identifier: GPL-2.0
/*
 * Must be rejected at load: set_oom_policy_name() may only be called from a
 * program attached to bpf_set_policy_name(), not from any tracing program
 * that can reach an oom_control.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

extern void set_oom_policy_name(struct oom_control *oc, const char *name,
				size_t name__sz) __ksym;

char name[16] = "sneaky";

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(rename, struct task_struct *task, struct oom_control *oc)
{
	set_oom_policy_name(oc, name, sizeof(name));
	return 0;
}
