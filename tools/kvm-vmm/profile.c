// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "profile.h"

#define LINE_MAX_BYTES 4096

static bool line_ok(const struct kvmvmm_profile_line *l)
{
	if (!l->key || !*l->key || !l->source || !*l->source ||
	    strpbrk(l->key, " \t\r\n=;#") || strpbrk(l->source, "\r\n"))
		return false;
	if (l->lo == l->hi)
		return l->value == l->lo;
	return l->lo < l->hi && l->lo <= l->value && l->value <= l->hi;
}

static int write_line(FILE *out, const struct kvmvmm_profile_line *l)
{
	int ret;

	if (l->lo == l->hi)
		ret = fprintf(out, "%s = %" PRIu64 " ; source: %s\n", l->key,
			      l->value, l->source);
	else
		ret = fprintf(out,
			      "%s = %" PRIu64 " ; range %" PRIu64 "..%" PRIu64
			      " ; source: %s\n",
			      l->key, l->value, l->lo, l->hi, l->source);
	return ret < 0 ? -EIO : 0;
}

/* The key of a `key = value` line, in @p key; false for other lines. */
static bool line_key(const char *line, char *key, size_t size)
{
	const char *p = line, *start, *end;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#' || *p == '[')
		return false;
	start = p;
	while (*p && *p != '=' && *p != ';' && *p != '#')
		p++;
	if (*p != '=')
		return false;
	end = p;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if ((size_t)(end - start) >= size || end == start)
		return false;
	memcpy(key, start, (size_t)(end - start));
	key[end - start] = '\0';
	return true;
}

int kvmvmm_profile_write(FILE *out, FILE *base, const char *header,
			 const struct kvmvmm_profile_line *lines, size_t n)
{
	bool written[64] = { false };
	char buf[LINE_MAX_BYTES], key[128];
	size_t i, j;
	int ret;

	if (n > sizeof(written) / sizeof(written[0]))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!line_ok(&lines[i]))
			return -EINVAL;
		for (j = 0; j < i; j++) {
			if (!strcmp(lines[i].key, lines[j].key))
				return -EINVAL;
		}
	}
	if (header && fputs(header, out) < 0)
		return -EIO;
	while (base && fgets(buf, sizeof(buf), base)) {
		size_t len = strlen(buf);

		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
			return -E2BIG;
		if (line_key(buf, key, sizeof(key))) {
			for (i = 0; i < n && strcmp(lines[i].key, key); i++)
				;
			if (i < n) {
				written[i] = true;
				ret = write_line(out, &lines[i]);
				if (ret < 0)
					return ret;
				continue;
			}
		}
		if (fputs(buf, out) < 0)
			return -EIO;
		if (len && buf[len - 1] != '\n' && fputc('\n', out) < 0)
			return -EIO;
	}
	if (base && ferror(base))
		return -EIO;
	for (i = 0; i < n; i++) {
		if (!written[i]) {
			ret = write_line(out, &lines[i]);
			if (ret < 0)
				return ret;
		}
	}
	return ferror(out) ? -EIO : 0;
}
