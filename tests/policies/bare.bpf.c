// SPDX-License-Identifier: GPL-2.0
/*
 * bare - a policy that describes itself and has oomctl's maps, but not the
 * programs of the contract (it does not include policy.bpf.h): no name
 * program, no kill tracker, no explain iterator. oomctl attach FILE must
 * refuse it, for tests/vm/oomctl-file.bats.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "oomctl.h"

char LICENSE[] SEC("license") = "GPL";

const struct oomctl_policy_desc oomctl_policy SEC(OOMCTL_DESC_SEC) __attribute__((used)) = {
	.abi_version = OOMCTL_ABI_VERSION,
	.name = "bare",
	.summary = "test only: the maps, not the programs",
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_config);
} oomctl_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_state);
} oomctl_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OOMCTL_EVENTS_BYTES);
} oomctl_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} oomctl_events_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_explain_args);
} oomctl_explain_args SEC(".maps");

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(bare_eval, struct task_struct *task, struct oom_control *oc)
{
	return NO_BPF_POLICY;
}
