// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - everything oomctl prints goes through here: errors through
 * p_err() (one line; a JSON object in JSON mode, so that scripts parsing
 * stdout always get JSON), results through print_result(), which either
 * writes the command's JSON object or hands it to the command's text
 * formatter. Commands therefore build one result and never print twice.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "oomctl.h"

/* Set around probes whose failure is an answer, not an error. */
bool quiet_errors;
/* The run failed on its command line or config file: main() exits 2. */
bool usage_error;

static void vp_err(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];

	if (quiet_errors)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (json_output) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "error", json_object_new_string(msg));
		print_json(o);
		json_object_put(o);
	} else {
		fprintf(stderr, "oomctl: %s%s\n", prefix, msg);
	}
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vp_err("", fmt, ap);
	va_end(ap);
}

/* A usage error in one line, as given (apply names FILE:LINE); -EINVAL. */
int usage_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vp_err("", fmt, ap);
	va_end(ap);
	usage_error = true;
	return -EINVAL;
}

/* A usage error: say what is wrong and where the usage is; -EINVAL. */
int usage_err(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cmd)
		return usage_line("%s: %s; see 'oomctl %s help'", cmd, msg, cmd);
	return usage_line("%s; see 'oomctl help'", msg);
}

void print_json(struct json_object *o)
{
	int flags = pretty_output ? JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_SPACED :
				    JSON_C_TO_STRING_PLAIN;

	puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
}

/* @o as JSON, or in words by @text, which gets @ctx: what it prints for. */
void print_result(struct json_object *o, text_fn *text, const void *ctx)
{
	if (json_output)
		print_json(o);
	else if (text)
		text(o, ctx);
	fflush(stdout);
}

struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_string(v) : "";
}

long long jint(struct json_object *o, const char *key)
{
	return json_object_get_int64(jget(o, key));
}
