// SPDX-License-Identifier: GPL-2.0
/*
 * oom-timing - load tests/bench/oom_timing.bpf.c for make bench, pin it,
 * read what it recorded.
 *
 *   oom-timing attach DIR CGROUP  time the OOMs of CGROUP's memcg: load the
 *                                 timing programs, pin their links and maps
 *                                 in DIR (on bpffs); rm -r DIR detaches
 *   oom-timing noop DIR           attach the do-nothing fmod_ret program to
 *                                 bpf_oom_evaluate_task, its link pinned as
 *                                 DIR/noop; rm DIR/noop detaches
 *   oom-timing read DIR           print the samples recorded, one line per
 *                                 OOM kill: "scan_ns oom_ns relief_ns tgid
 *                                 scans", and forget them
 *
 * Run inside the VM only (tests/bench/run-in-vm).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "oom_timing.h"
#include "oom_timing.skel.h"
#include "../tools/cgroup_id.h"

static int usage(void)
{
	fprintf(stderr, "usage: oom-timing attach DIR CGROUP | noop DIR | read DIR\n");
	return 2;
}

static int pin(const char *dir, const char *name, int (*fn)(void *, const char *),
	       void *obj)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fn(obj, path)) {
		fprintf(stderr, "oom-timing: pin %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int pin_map(void *m, const char *path) { return bpf_map__pin(m, path); }
static int pin_link(void *l, const char *path) { return bpf_link__pin(l, path); }

/* Load the programs (all but the no-op one, or only it) and pin them. */
static int attach(const char *dir, const char *cgroup, int noop)
{
	struct oom_timing_bpf *skel;
	struct bpf_program *prog;
	struct bench_ctl c = {};
	__u32 zero = 0;
	int err = 1;

	if (!noop && cgroup_id(cgroup, &c.memcg_id)) {
		fprintf(stderr, "oom-timing: bad cgroup '%s': %s\n", cgroup, strerror(errno));
		return 1;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "oom-timing: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	skel = oom_timing_bpf__open();
	if (!skel) {
		perror("oom-timing: open");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, (prog == skel->progs.bench_noop) == noop);
	if (oom_timing_bpf__load(skel)) {
		fprintf(stderr, "oom-timing: load failed\n");
		goto out;
	}
	if (noop) {
		struct bpf_link *l = bpf_program__attach(skel->progs.bench_noop);

		if (!l) {
			fprintf(stderr, "oom-timing: attach bench_noop: %s\n", strerror(errno));
			goto out;
		}
		err = pin(dir, "noop", pin_link, l) ? 1 : 0;
		bpf_link__destroy(l);
		goto out;
	}
	if (bpf_map__update_elem(skel->maps.bench_ctl, &zero, sizeof(zero), &c,
				 sizeof(c), BPF_ANY)) {
		perror("oom-timing: bench_ctl");
		goto out;
	}
	if (oom_timing_bpf__attach(skel)) {
		fprintf(stderr, "oom-timing: attach failed\n");
		goto out;
	}
	if (pin(dir, "ctl", pin_map, skel->maps.bench_ctl) ||
	    pin(dir, "samples", pin_map, skel->maps.bench_samples))
		goto out;
	struct bpf_link *links[] = {
		skel->links.bench_cross, skel->links.bench_oom_enter,
		skel->links.bench_scan_enter, skel->links.bench_scan_exit,
		skel->links.bench_kill, skel->links.bench_oom_exit, skel->links.bench_exit,
	};
	const char *names[] = {
		"cross", "oom_enter", "scan_enter", "scan_exit", "kill", "oom_exit", "exit",
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (pin(dir, names[i], pin_link, links[i]))
			goto out;
	err = 0;
out:
	oom_timing_bpf__destroy(skel);
	return err;
}

static int read_samples(const char *dir)
{
	char path[4096];
	struct bench_ctl c;
	struct bench_sample s, empty = {};
	__u32 zero = 0;
	int cfd, sfd;

	snprintf(path, sizeof(path), "%s/ctl", dir);
	cfd = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/samples", dir);
	sfd = bpf_obj_get(path);
	if (cfd < 0 || sfd < 0 || bpf_map_lookup_elem(cfd, &zero, &c)) {
		fprintf(stderr, "oom-timing: no timing maps in %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (__u32 i = 0; i < c.n && i < BENCH_MAX_SAMPLES; i++) {
		if (bpf_map_lookup_elem(sfd, &i, &s))
			return 1;
		printf("%llu %llu %llu %u %u\n", (unsigned long long)s.scan_ns,
		       (unsigned long long)s.oom_ns, (unsigned long long)s.relief_ns,
		       s.tgid, s.scans);
		bpf_map_update_elem(sfd, &i, &empty, BPF_ANY);
	}
	if (c.lost)
		fprintf(stderr, "oom-timing: %llu kills not recorded (more than %d)\n",
			(unsigned long long)c.lost, BENCH_MAX_SAMPLES);
	/* Read-modify-write: nothing OOMs while the bench driver reads. */
	c.n = 0;
	c.lost = 0;
	return bpf_map_update_elem(cfd, &zero, &c, BPF_ANY) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "attach"))
		return attach(argv[2], argv[3], 0);
	if (argc == 3 && !strcmp(argv[1], "noop"))
		return attach(argv[2], NULL, 1);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_samples(argv[2]);
	return usage();
}
