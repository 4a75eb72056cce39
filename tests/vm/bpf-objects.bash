# The kernel's BPF objects, counted (sourced by tests/vm/init, which records
# them at boot, and by oomctl-helpers.bash). Read with bash from bpftool's
# text output, one bpftool per kind and no JSON tool: the SIGKILL rounds
# (kill-rounds.bash) count them at every round, and oomctl-lifecycle.bats
# samples the evaluate links in a loop.

# bpf_count KIND — how many KINDs (prog, link, map) bpftool lists, in COUNT;
# for links also how many are on the evaluate hook (fmod_ret: attach_type
# modify_return, on a link's second line), in EVALS.
bpf_count() {
	local out line
	out=$(bpftool "$1" show) || return 1
	COUNT=0
	[[ $1 != link ]] || EVALS=0
	while IFS= read -r line; do
		if [[ $line =~ ^[0-9]+: ]]; then
			COUNT=$((COUNT + 1))
		elif [[ $1 == link && $line == *"attach_type modify_return"* ]]; then
			EVALS=$((EVALS + 1))
		fi
	done <<<"$out"
}

# objects_now — the kernel's programs, links and maps as "PROGS LINKS MAPS"
# in OBJS (the form of /run/bpf-objects.boot), the evaluate links in EVALS.
objects_now() {
	local kind
	OBJS=''
	for kind in prog link map; do
		bpf_count "$kind" || return 1
		OBJS+="${OBJS:+ }$COUNT"
	done
}

# objects_are "PROGS LINKS MAPS" — for wait_for: an unpinned object is freed
# a little later (a work item, an RCU grace period).
objects_are() { objects_now && [ "$OBJS" = "$1" ]; }

# eval_links — how many links are on bpf_oom_evaluate_task; eval_links_are
# N for wait_for.
eval_links() { bpf_count link && echo "$EVALS"; }
eval_links_are() { [ "$(eval_links)" = "$1" ]; }
