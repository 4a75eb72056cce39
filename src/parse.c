// SPDX-License-Identifier: GPL-2.0
/* parse.c - strict number parsing: decimal only, no junk, no wrap. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "oomctl.h"

/*
 * 0 when @s is a plain decimal integer within [@min, @max]; -EINVAL when
 * it is not a number (empty, sign, spaces, trailing junk such as "10abc"),
 * -ERANGE when it is one but out of range. strtoul alone would accept
 * " 10", "+10" and "-1" (as ULONG_MAX).
 */
int parse_uint(const char *s, unsigned long min, unsigned long max,
	       unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * abort-all's pause deadline: "infinity" (no deadline: 0) or whole seconds
 * in 1..OOMCTL_MAX_PAUSE_MAX_S, as parse_uint() reports errors.
 */
int parse_max_pause(const char *s, __u32 *out)
{
	unsigned long v;
	int err;

	if (!strcmp(s, "infinity")) {
		*out = 0;
		return 0;
	}
	err = parse_uint(s, 1, OOMCTL_MAX_PAUSE_MAX_S, &v);
	if (!err)
		*out = v;
	return err;
}
