// SPDX-License-Identifier: GPL-2.0
/*
 * oomctl - attach, configure and inspect BPF OOM policies.
 *
 *   oomctl [OPTIONS] COMMAND [ARGS]     oomctl help     oomctl COMMAND help
 *
 * The command table and dispatch follow bpftool: exact command names plus a
 * few explicit aliases (prefix matching would change meaning whenever a
 * command is added), a usage text per command, -j/-p everywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "oomctl.h"

#define OOMCTL_VERSION "0.1"

bool json_output;
bool pretty_output;
bool debug_output;
bool verbose_output;
const char *bpffs_dir = DEFAULT_BPFFS;

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;	/* after the command name */
	const char *summary;
	const char *help;	/* more lines for 'oomctl COMMAND help' */
};

static const struct cmd cmds[] = {
	{ "list", do_list, "",
	  "list the bundled policies and which one is attached", NULL },
	{ "attach", do_attach,
	  "POLICY|PATH.bpf.o [--name NAME] [--default-prio PRIO]\n"
	  "              [--slice CGROUP]... [--cgroup CGROUP]... [--max-pause SECONDS]\n"
	  "              [--replace] [--bpffs DIR]",
	  "load POLICY, attach it to the OOM hooks and pin it",
	  "  POLICY            a bundled policy ('oomctl list', oomctl-policies(7))\n"
	  "  PATH.bpf.o        a policy object built on oomctl/policy.bpf.h; a path\n"
	  "                    has a '/' (./x.bpf.o)\n"
	  "  --name NAME       policy_name shown in the OOM report (at most 15 bytes;\n"
	  "                    default: the policy's name)\n"
	  "  --default-prio PRIO\n"
	  "                    the value of cgroups without one, in the policy's\n"
	  "                    range (default 0)\n"
	  "  --slice CGROUP    a slice (cgroup v2 subtree) whose largest task dies\n"
	  "                    first; repeat for more\n"
	  "  --cgroup CGROUP   a cgroup of the policy's set: whose OOMs it aborts\n"
	  "                    (default: every memcg OOM), or whose processes it\n"
	  "                    protects; repeat for more\n"
	  "  --max-pause SECONDS\n"
	  "                    a cgroup paused this long gets the kernel's kill,\n"
	  "                    1..86400 or infinity (default 30)\n"
	  "  --replace         swap the attached oomctl policy for this one, with no gap\n"
	  "  --bpffs DIR       bpffs mount to pin under (default /sys/fs/bpf);\n"
	  "                    pins go to DIR/oomctl/policy\n" },
	{ "detach", do_detach, "[--bpffs DIR]",
	  "unpin the attached policy and check that nothing of it remains", NULL },
	{ "status", do_status, "[--bpffs DIR]",
	  "show the attached policy, its counters, last victim and entries", NULL },
	{ "entry", do_entry, "add|del|get [KEY [VALUE]]...",
	  "edit or show the attached policy's entries, of whatever kind it keeps",
	  "  add CGROUP VALUE  a policy keeping a value per cgroup: set CGROUP's\n"
	  "  add KEY...        a policy keeping a set: add cgroups or processes\n"
	  "  del KEY...        remove entries (of values: one CGROUP)\n"
	  "  get               list every entry\n"
	  "  get KEY           the value CGROUP gets (its own, inherited or the\n"
	  "                    default), or whether KEY is in the set\n"
	  "KEY is a cgroup v2 directory or a process id, as the policy keeps\n"
	  "(oomctl status). set-prio, add-pid, set-slice and the other map\n"
	  "commands are this for one bundled policy.\n" },
	{ "set-prio", do_entry_alias, "CGROUP PRIO",
	  "cgprio: set CGROUP's priority (lower dies first)",
	  "  CGROUP            a cgroup v2 directory: /sys/fs/cgroup/x, or x relative\n"
	  "                    to the cgroup2 mount\n"
	  "  PRIO              a decimal integer, 0..1000\n" },
	{ "get-prio", do_entry_alias, "[CGROUP]",
	  "cgprio: show CGROUP's effective priority, or every entry", NULL },
	{ "unset-prio", do_entry_alias, "CGROUP",
	  "cgprio: remove CGROUP's entry (it inherits again)", NULL },
	{ "add-pid", do_entry_alias, "PID...",
	  "pid: add processes (thread-group ids) to the targets", NULL },
	{ "del-pid", do_entry_alias, "PID...",
	  "pid: remove processes from the targets", NULL },
	{ "get-pids", do_entry_alias, "", "pid: list the targets", NULL },
	{ "set-slice", do_entry_alias, "CGROUP...",
	  "rss-slice: add cgroups to the slices", NULL },
	{ "unset-slice", do_entry_alias, "CGROUP...",
	  "rss-slice: remove cgroups from the slices", NULL },
	{ "get-slices", do_entry_alias, "", "rss-slice: list the slices", NULL },
	{ "apply", do_apply, "[--dry-run] [--skip-missing] FILE",
	  "make the attached policy and its entries exactly those of FILE",
	  "  FILE              a config file, oomctl.conf(5); - reads standard input\n"
	  "  --dry-run         print what would change; change nothing\n"
	  "  --skip-missing    report and skip cgroups and pids that do not exist\n"
	  "                    (default: fail, changing nothing)\n"
	  "Prints one line per change (+ added, ~ changed, - removed) and a total.\n" },
	{ "events", do_events, "[--count N] [--timeout S]",
	  "show the policy's OOM decisions: those recorded, then new ones",
	  "  --count N         stop after N events (exit 1 if --timeout ends first)\n"
	  "  --timeout S       stop after S seconds (0: only what is recorded)\n"
	  "One line per decision (a JSON object per line in JSON mode): time, scope,\n"
	  "policy_name, the victim and the rule that chose it; or a scan that chose\n"
	  "no victim.\n" },
	{ "explain", do_explain, "[--cgroup CGROUP] [--top N]",
	  "rank the processes as the attached policy would in an OOM now",
	  "  --cgroup CGROUP   an OOM of this memcg (default: a global OOM)\n"
	  "  --top N           show the first N ranked processes (default 10; 0: all)\n"
	  "Computed in the kernel by the policy's own decision function; nothing is\n"
	  "killed.\n" },
	{ "help", NULL, "[COMMAND]", "show this help, or a command's", NULL },
};

static const struct { const char *alias, *name; } aliases[] = {
	{ "ls", "list" },
	{ "show", "status" },
};

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

static const char common_opts_help[] =
	"Options:\n"
	"  -j, --json        print JSON (errors too)\n"
	"  -p, --pretty      print indented JSON (implies --json)\n"
	"  -d, --debug       show libbpf's messages as they come\n"
	"  -v, --verbose     when the kernel refuses a policy, show the whole\n"
	"                    verifier log (default: its last lines)\n"
	"      --bpffs DIR   bpffs mount holding oomctl's pins (default /sys/fs/bpf)\n"
	"  -h, --help        show help\n";

static void print_usage(FILE *f)
{
	fprintf(f, "Usage: oomctl [OPTIONS] COMMAND [ARGS]\n"
		   "       oomctl COMMAND help\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-12s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nAliases: ls = list, show = status\n\n%s"
		   "  -V, --version     show the version\n\n"
		   "Policies: %s ('oomctl list',\n"
		   "oomctl-policies(7)), or a policy object's path.\n"
		   "Exit status: 0 success, 1 failure, 2 usage error.\n"
		   "See oomctl(8).\n", common_opts_help, policy_names());
}

void print_cmd_usage(const char *name, bool to_stderr)
{
	const struct cmd *c = find_cmd(name);
	FILE *f = to_stderr ? stderr : stdout;

	if (!c)
		return;
	fprintf(f, "Usage: oomctl %s%s%s\n\n%s.\n", c->name, *c->args ? " " : "",
		c->args, c->summary);
	if (c->help)
		fprintf(f, "\n%s", c->help);
	if (c->fn == do_attach) {
		/* Which policy takes which option: from their descriptions. */
		fprintf(f, "Options by policy:\n");
		for (size_t i = 0; i < nr_policies; i++) {
			const char *opt[4];
			size_t n = policy_attach_options(&policies[i], opt);

			fprintf(f, "  %-16s  --name --replace", policies[i].name);
			for (size_t j = 0; j < n; j++)
				fprintf(f, " %s", opt[j]);
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n%s\nExit status: 0 success, 1 failure, 2 usage error.\n",
		common_opts_help);
}

/* 'oomctl COMMAND help' (only as the first argument, like bpftool). */
int cmd_help_requested(int argc, char **argv)
{
	return argc >= 2 && !strcmp(argv[1], "help");
}

enum { OPT_BPFFS = 0x100 };

/* Is @c a common option? Then it is taken. */
static bool common_opt(int c, const char *arg)
{
	switch (c) {
	case 'j':
		json_output = true;
		return true;
	case 'p':
		json_output = pretty_output = true;
		return true;
	case 'd':
		debug_output = true;
		return true;
	case 'v':
		verbose_output = true;
		return true;
	case OPT_BPFFS:
		bpffs_dir = arg;
		return true;
	}
	return false;
}

#define COMMON_LONGOPTS					\
	{ "json", no_argument, NULL, 'j' },		\
	{ "pretty", no_argument, NULL, 'p' },		\
	{ "debug", no_argument, NULL, 'd' },		\
	{ "verbose", no_argument, NULL, 'v' },		\
	{ "bpffs", required_argument, NULL, OPT_BPFFS },\
	{ "help", no_argument, NULL, 'h' }

int parse_cmd_opts(const char *cmd, int argc, char **argv,
		   const struct option *extra, const char *shortopts,
		   int (*handle)(int opt, const char *arg, void *ctx), void *ctx,
		   int *first_arg)
{
	static const struct option common[] = { COMMON_LONGOPTS };
	struct option opts[32];
	char shorts[32];
	size_t n = 0;
	int c;

	for (; extra && extra[n].name; n++)
		opts[n] = extra[n];
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		opts[n++] = common[i];
	opts[n] = (struct option){ 0 };
	/* ':' first: a missing argument is reported as ':', not '?' */
	snprintf(shorts, sizeof(shorts), ":jpdvh%s", shortopts ? shortopts : "");

	optind = 0;	/* glibc: reinitialise, argv[0] is the command */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		if (common_opt(c, optarg))
			continue;
		if (c == 'h') {
			print_cmd_usage(cmd, false);
			return 1;	/* the command ends, successfully */
		}
		if (c == '?' && optopt >= '0' && optopt <= '9') {
			/* "-1" or "-0": a value, not an option. getopt has
			 * moved past it unless more of it is left ("-10").
			 */
			const char *a = argv[optind - 1];

			if (optind < argc && argv[optind][0] == '-' &&
			    argv[optind][1] == optopt)
				a = argv[optind];
			return usage_err(cmd, "'%s': a value may not start with '-' "
					 "(negative numbers are out of range)", a);
		}
		if (c == '?') {
			if (optopt)
				return usage_err(cmd, "unknown option '-%c'", optopt);
			return usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		}
		if (c == ':')
			return usage_err(cmd, "option '%s' needs an argument",
					 argv[optind - 1]);
		if (!handle)
			return usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		c = handle(c, optarg, ctx);
		if (c)
			return c;
	}
	*first_arg = optind;
	return 0;
}

/* Warnings of the load in progress (the verifier log among them). */
static struct {
	bool on;
	char *buf;
	size_t len;
} bpf_log;

void bpf_log_capture(bool on)
{
	if (on) {
		free(bpf_log.buf);
		bpf_log.buf = NULL;
		bpf_log.len = 0;
	}
	bpf_log.on = on;
}

/*
 * The captured log after a refused load: its last lines, which say what
 * the verifier objected to, or all of it with --verbose. To stderr, also in
 * JSON mode: stdout holds the one JSON error.
 */
void bpf_log_print_tail(void)
{
	const int tail = 12;
	const char *start;
	int lines = 0;

	if (!bpf_log.len) {
		if (!debug_output)
			fprintf(stderr, "oomctl: (libbpf gave no log; run with --debug)\n");
		return;
	}
	start = bpf_log.buf + bpf_log.len;
	if (bpf_log.buf[bpf_log.len - 1] == '\n')
		start--;	/* the log's own last newline ends no line */
	while (!verbose_output && start > bpf_log.buf) {
		if (start[-1] == '\n' && ++lines == tail)
			break;
		start--;
	}
	if (verbose_output)
		start = bpf_log.buf;
	fprintf(stderr, "oomctl: %s:\n%s", verbose_output ? "the load log" :
		"the last lines of the load log (-v shows all of it)", start);
	if (bpf_log.buf[bpf_log.len - 1] != '\n')
		fputc('\n', stderr);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char *more;
	va_list aq;
	int n;

	if (debug_output)
		return vfprintf(stderr, fmt, ap);
	if (!bpf_log.on || level != LIBBPF_WARN)
		return 0;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n <= 0)
		return 0;
	more = realloc(bpf_log.buf, bpf_log.len + n + 1);
	if (!more)
		return 0;
	bpf_log.buf = more;
	vsnprintf(bpf_log.buf + bpf_log.len, n + 1, fmt, ap);
	bpf_log.len += n;
	return n;
}

/* oomctl: the options, then the command; 0 or -errno, as every command. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	const struct cmd *cmd;
	int c, err;

	/* The bundled policies' descriptions, read from their objects. */
	err = policies_init();
	if (err)
		return err;
	opterr = 0;
	/* '+': stop at the command; its own options are parsed by it. */
	while ((c = getopt_long(argc, argv, "+:jpdvhV", opts, NULL)) != -1) {
		if (common_opt(c, optarg))
			continue;
		switch (c) {
		case 'h':
			print_usage(stdout);
			return 0;
		case 'V':
			printf("oomctl %s (libbpf %s)\n", OOMCTL_VERSION,
			       libbpf_version_string());
			return 0;
		case ':':
			return usage_err(NULL, "option '%s' needs an argument",
					 argv[optind - 1]);
		default:
			if (optopt)
				return usage_err(NULL, "unknown option '-%c'", optopt);
			return usage_err(NULL, "unknown option '%s'", argv[optind - 1]);
		}
	}
	/* Test only: see test-stop.c. */
	err = test_steps_init();
	if (err)
		return err < 0 ? err : 0;
	if (optind >= argc) {
		if (json_output)
			return usage_err(NULL, "no command given");
		/* The usage itself says what is missing. */
		print_usage(stderr);
		usage_error = true;
		return -EINVAL;
	}
	argc -= optind;
	argv += optind;

	if (!strcmp(argv[0], "help")) {
		if (argc == 1) {
			print_usage(stdout);
			return 0;
		}
		if (argc > 2 || !find_cmd(argv[1]))
			return usage_err(NULL, "help: unknown command '%s'", argv[1]);
		print_cmd_usage(argv[1], false);
		return 0;
	}
	cmd = find_cmd(argv[0]);
	if (!cmd)
		return usage_err(NULL, "unknown command '%s'", argv[0]);
	if (cmd_help_requested(argc, argv)) {
		if (argc > 2)
			return usage_err(cmd->name, "'help' takes no arguments");
		print_cmd_usage(cmd->name, false);
		return 0;
	}
	argv[0] = (char *)cmd->name;
	return test_steps_end(cmd->fn(argc, argv));
}

/*
 * The one place where a result becomes the exit status, the same for every
 * command (oomctl(8), EXIT STATUS): never anything but 0, 1 or 2.
 */
int main(int argc, char **argv)
{
	int err;

	libbpf_set_print(libbpf_print);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	err = run(argc, argv);
	if (err >= 0)
		return EXIT_OK;
	return usage_error ? EXIT_USAGE : EXIT_FAIL;
}
