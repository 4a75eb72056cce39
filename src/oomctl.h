/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oomctl.h - declarations shared by oomctl's source files. The layouts that
 * the BPF side shares live in bpf-policies/oomctl.h, included here.
 *
 * Errors, one convention for every function in src/ that can fail, the
 * commands (do_*()) included:
 *  - it returns 0 (or what it gives: an fd, a count, an index) on success
 *    and a negative errno on failure; never a bare -1, never an exit status;
 *  - a failure has been said in one line through p_err() (output.c), the one
 *    error sink, unless the function's comment calls it quiet: a quiet one
 *    prints nothing, and its caller, which knows the command and what it was
 *    doing, prints the line. A function is one or the other for all its
 *    errors;
 *  - a malformed command line or config file is said by usage_err() or
 *    usage_line(), which return -EINVAL and mark the run a usage error.
 * main() alone turns a command's result into oomctl(8)'s exit status:
 * EXIT_OK for >= 0, EXIT_USAGE after a usage error, else EXIT_FAIL.
 */
#ifndef OOMCTL_SRC_H
#define OOMCTL_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "../bpf-policies/oomctl.h"

/* Exit statuses, the same for every command. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the command was well formed but failed */
#define EXIT_USAGE	2	/* the command line was not */

#define DEFAULT_BPFFS	"/sys/fs/bpf"
#define PIN_SUBDIR	"oomctl"	/* <bpffs>/oomctl: root, 0700 */
#define POLICY_SUBDIR	"policy"	/* <bpffs>/oomctl/policy: the live one */

/* Global options (main.c), also accepted after the command. */
extern bool json_output;
extern bool pretty_output;
extern bool debug_output;
extern bool verbose_output;
extern const char *bpffs_dir;

/* output.c: the one error path and the one JSON writer. */
extern bool quiet_errors;
extern bool usage_error;	/* usage_err() or usage_line() was called */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int usage_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_json(struct json_object *o);
typedef void text_fn(struct json_object *o, const void *ctx);
void print_result(struct json_object *o, text_fn *text, const void *ctx);
const char *jstr(struct json_object *o, const char *key);
long long jint(struct json_object *o, const char *key);
struct json_object *jget(struct json_object *o, const char *key);

/*
 * main.c: libbpf's messages. Unless --debug prints them as they come, the
 * warnings of a load are kept, so that a refused program can be explained.
 */
void bpf_log_capture(bool on);
void bpf_log_print_tail(void);

/* main.c: shared option handling for the commands. */
int cmd_help_requested(int argc, char **argv);
void print_cmd_usage(const char *cmd, bool to_stderr);

/*
 * Parse a command's options with getopt_long; common options (-j, -p, -d,
 * --bpffs) are handled here. @handle gets the others and returns 0 or
 * usage_err()'s -EINVAL. Returns 0, and *first_arg indexes the first
 * positional argument; 1 after printing the command's help (the command
 * ends, successfully); or -EINVAL after usage_err().
 */
struct option;
int parse_cmd_opts(const char *cmd, int argc, char **argv,
		   const struct option *extra, const char *shortopts,
		   int (*handle)(int opt, const char *arg, void *ctx), void *ctx,
		   int *first_arg);

#define PID_MAX_LIMIT	4194304	/* include/linux/threads.h, 64-bit */

/* parse.c */
int parse_uint(const char *s, unsigned long min, unsigned long max,
	       unsigned long *out);
int parse_max_pause(const char *s, __u32 *out);
#define MAX_PAUSE_WANT	"a number of seconds, 1..86400, or infinity"

/* caps.c */
enum caps_need { NEED_BPF, NEED_ADMIN };
int need_caps(const char *cmd, enum caps_need need);

/* kernel.c: the OOM hooks in the running kernel's BTF. */
enum hook_id {
	HOOK_EVALUATE, HOOK_NAME, HOOK_KILL, HOOK_KILL_TASK,	/* functions */
	HOOK_FAIL, HOOK_PAUSE, HOOK_RESUME,			/* tracepoints */
	NR_HOOKS
};
#define HOOK_FIRST_TP	HOOK_FAIL
struct hooks {
	__s32 btf_id[NR_HOOKS];	/* 0 when absent */
};
extern const char *const hook_names[NR_HOOKS];
int hooks_find(struct hooks *h);
struct hooked_link {
	__u32 link_id, prog_id;
	enum hook_id hook;
	char prog_name[16];
};
int hooked_links(const struct hooks *h, struct hooked_link **out, size_t *n);

/* pins.c: the pin directory, its lock, and object ids behind pins. */
struct pindir {
	int fd;			/* <bpffs>/oomctl, locked */
	char path[4096];	/* its real path, for messages */
	bool created;		/* made by this run: removed if it fails */
};
int pindir_open(struct pindir *pd, bool create);
void pindir_close(struct pindir *pd);
int pindir_fdpath(const struct pindir *pd, const char *rel, char *buf, size_t sz);
int policy_present(const struct pindir *pd);
void cleanup_stale(const struct pindir *pd);
struct pinned_obj {
	char name[256];		/* file name in the policy dir */
	bool is_link;
	__u32 id, prog_id;	/* object id; a link's program id */
	char obj_name[16];	/* the map's or the link's program's name */
};
int list_pins(const struct pindir *pd, const char *sub, struct pinned_obj **out,
	      size_t *n);
enum pin_kind { PIN_MAP, PIN_LINK };
#define PIN_MAP_PREFIX	"map_"
#define PIN_LINK_PREFIX	"link_"
void pin_rel(char *buf, size_t sz, const char *dir, enum pin_kind kind, const char *name);
int remove_pins(const struct pindir *pd, const char *sub);

/*
 * policy.c: a policy, as its object describes itself (its OOMCTL_POLICY()
 * section): the bundled ones (embedded), or one given as a file. The
 * pointers below point into @desc.
 */
struct policy {
	struct oomctl_policy_desc desc;
	const char *name;
	const char *summary;
	enum oomctl_entry_kind kind;
	const char *map;	/* its own map: cgprio_prios, ...; NULL: none */
	const char *entries;	/* status -j key of that map's entries */
	bool has_default_prio;
	bool has_max_pause;	/* abort-all's pause deadline */
	/* The attach option that fills its map with cgroups (--slice,
	 * --cgroup), NULL if none; @scoping: giving it sets OOMCTL_CFG_SCOPED.
	 */
	const char *cgroup_opt;
	bool scoping;
	/* The object: embedded bytes, or a file's (attach PATH.bpf.o). */
	const void *elf;
	size_t elf_sz;
	const char *obj_name;	/* libbpf's object name */
	const char *path;	/* the file, or NULL */
	bool from_file;		/* attached (or to attach) from a file */
	char obj_name_buf[32];
};
extern const struct policy *policies;
extern size_t nr_policies;
int policies_init(void);
const struct policy *policy_by_name(const char *name);
const char *policy_names(void);
const char *policies_with(bool (*has)(const struct policy *, const char *),
			  const char *arg);
bool policy_has_entry(const struct policy *p, const char *word);
bool policy_has_default(const struct policy *p, const char *unused);
bool policy_has_max_pause(const struct policy *p, const char *unused);
bool policy_same(const struct policy *a, const struct policy *b);
size_t policy_attach_options(const struct policy *p, const char *opt[4]);
const struct policy *policy_of_config(const struct oomctl_config *cfg,
				      struct policy *own);
int policy_from_file(const char *cmd, const char *path, struct policy *p);
void policy_free(struct policy *p);
struct bpf_object;
struct bpf_object *policy_open(const struct policy *p);
const char *policy_programs_problem(struct bpf_object *obj, char *buf, size_t sz);
/* Is @arg a policy object's path rather than a bundled policy's name? */
static inline bool is_policy_path(const char *arg)
{
	return arg[0] == '/' || arg[0] == '.' || (arg[0] && strchr(arg, '/'));
}
/* maps.c: @p's entries as status lists them (@fd its own map). */
struct json_object *policy_entries(const struct policy *p, int fd);
/* entry.c: those entries in words, for entry get and (under @title) status. */
void entries_text(const struct policy *p, struct json_object *a, const char *title,
		  const char *empty_note);

/* state.c: what is attached, read back from the pins. */
struct attached {
	bool present;
	struct oomctl_config cfg;
	const struct policy *policy;	/* a bundled one, or &own */
	struct policy own;
	struct oomctl_state state;
};
int read_attached(const struct pindir *pd, struct attached *a);

/*
 * session.c: a command's one way to the attached policy (see there): the
 * pin directory locked, what is attached read once, the pinned maps and
 * links it asks for opened once; session_close() releases them.
 */
#define SESSION_MAX_FDS	4
struct session {
	const char *cmd;		/* for messages */
	struct pindir pd;		/* fd < 0: not open, or no directory */
	struct attached a;		/* read when the directory was locked */
	struct {
		enum pin_kind kind;
		const char *name;
		int fd;
	} fds[SESSION_MAX_FDS];
	size_t nfds;
};
#define SESSION_INIT(command)	{ .cmd = (command), .pd = { .fd = -1 } }
enum {
	SESSION_CREATE = 1 << 0,	/* make the pin directory (attach) */
	SESSION_CLEAN = 1 << 1,		/* release what a killed run left */
	SESSION_POLICY = 1 << 2,	/* none attached is an error */
};
int session_open(struct session *s, unsigned int flags);
int session_fd(struct session *s, enum pin_kind kind, const char *name);
int session_pin(struct session *s, enum pin_kind kind, const char *name);
int session_policy_map(struct session *s, const struct policy *want);
void session_drop_fds(struct session *s);
void session_unlock(struct session *s);
void session_close(struct session *s);

/* cgroup.c */
struct cgroup_ref {
	__u64 id;
	char path[4096];	/* filesystem path */
	char cgpath[4096];	/* path inside the hierarchy, "/a/b" */
};
int cgroup_lookup(const char *arg, struct cgroup_ref *cg, char *why, size_t wsz);
int cgroup_resolve(const char *arg, struct cgroup_ref *cg);
int cgroup_id_of(const char *path, __u64 *id);
int cgroup_exists(__u64 id, const char *path);
struct cgroup_map;
struct cgroup_map *cgroup_map_build(void);
const char *cgroup_map_path(struct cgroup_map *m, __u64 id, bool cgpath);
void cgroup_map_free(struct cgroup_map *m);
const char *cgroup2_mount(void);

/* maps.c: a policy map's entries as JSON arrays (policy_entries()). */
struct json_object *cgroup_entries(int fd, const char *value_key);
struct json_object *pid_entries(int fd);

/*
 * entries.c: an entry of a policy's own map, as attach, apply and the map
 * commands want it: keyed by a cgroup id (cg set) or by a pid.
 */
struct map_entry {
	const struct cgroup_ref *cg;	/* the cgroup; NULL: keyed by pid */
	__u32 pid;
	__u32 value;			/* cgprio: the prio; otherwise 1 */
};
const void *entry_key(const struct map_entry *e);
int entries_add(int fd, const struct map_entry *e, size_t n);
int entries_recheck(const char *cmd, int fd, const struct map_entry *e, size_t n);

/* attach.c: load, configure, fill and attach @p (attach, apply), or
 * detach, in the caller's session @s. With @want NULL, a replace of the
 * same policy keeps the old entries and scope.
 */
int attach_policy(struct session *s, const struct policy *p,
		  struct oomctl_config *cfg, const struct map_entry *want,
		  size_t nwant, bool replace, struct json_object **res);
int detach_policy(struct session *s, struct json_object **res);

/* maps.c: the process @pid's tgid from /proc (and its comm), or 0. */
__u32 proc_tgid(__u32 pid, char comm[16]);

/* rank.c: a policy's rank of a task, for events and explain. */
void rank_text(const struct policy *p, const struct oomctl_rank *r,
	       const __u64 *runner_up, struct cgroup_map *cm, char *buf, size_t sz);
struct json_object *rank_json(const struct policy *p, const struct oomctl_rank *r,
			      struct cgroup_map *cm);

/*
 * test-stop.c, test only: the steps of attach, attach --replace and detach,
 * the points between two of their side effects, at which
 * OOMCTL_TEST_STOP_AT=STEP[:N] makes oomctl stop itself so that
 * tests/vm/reliability-kill.bats can SIGKILL it exactly there. This is their
 * one list; a call site names a step by its enum, so every step it can reach
 * is here. Every side effect that outlives the process (a directory made or
 * removed, a pin made or unlinked, a link attached, a rename) is followed by
 * a step before the next one; a pin's fchmodat() is not (bpffs creates
 * pins 0600 already, in a 0700 directory).
 */
#define TEST_STEPS(X)							\
	X(STEP_LOCKED, "locked", "the pin directory opened (made if need be) "	\
	  "and locked by this run; nothing else changed")			\
	X(STEP_LOADED, "loaded", "attach: the policy loaded, configured and "	\
	  "filled, held by this process only")				\
	X(STEP_STAGED, "staged", "attach: staging-PID made, empty")		\
	X(STEP_MAP_PINNED, "map-pinned", "attach: one more map pinned in "	\
	  "staging-PID (once per map)")					\
	X(STEP_LINK_ATTACHED, "link-attached", "attach: one more program "	\
	  "attached, its link held by this process only (once per program, "	\
	  "the evaluate program last)")					\
	X(STEP_LINK_PINNED, "link-pinned", "attach: that link pinned in "	\
	  "staging-PID (once per program)")				\
	X(STEP_RENAMED_IN, "renamed-in", "attach: staging-PID renamed to "	\
	  "policy (--replace: exchanged with it, staging-PID now holds the "	\
	  "old policy)")							\
	X(STEP_RENAMED_OUT, "renamed-out", "detach: policy renamed to "	\
	  "detaching-PID")						\
	X(STEP_PIN_REMOVED, "pin-removed", "one more pin of a staging-PID or "	\
	  "detaching-PID directory unlinked (once per pin)")		\
	X(STEP_UNPINNED, "unpinned", "that directory's last pin unlinked and "	\
	  "the directory removed")					\
	X(STEP_DONE, "done", "attach, detach: done, the result not yet "	\
	  "printed, the descriptors and the lock still held")

#define STEP_ENUM(id, name, what) id,
enum test_step { TEST_STEPS(STEP_ENUM) NR_TEST_STEPS };
#undef STEP_ENUM

extern bool test_steps_on;	/* OOMCTL_TEST_STOP_AT is set */
/* main(): read OOMCTL_TEST_STOP_AT; 0, 1 after =list (the run ends,
 * successfully), or -EINVAL after usage_err().
 */
int test_steps_init(void);
void test_step_reached(enum test_step s);
/* main(): @err, or -ESRCH after one line if the run never reached the step
 * to stop at.
 */
int test_steps_end(int err);

static inline void test_stop_at(enum test_step s)
{
	if (test_steps_on)
		test_step_reached(s);
}

/* commands */
int do_list(int argc, char **argv);
int do_attach(int argc, char **argv);
int do_detach(int argc, char **argv);
int do_status(int argc, char **argv);
int do_entry(int argc, char **argv);
int do_entry_alias(int argc, char **argv);	/* set-prio, add-pid, ... */
int do_apply(int argc, char **argv);
int do_events(int argc, char **argv);
int do_explain(int argc, char **argv);

#endif
