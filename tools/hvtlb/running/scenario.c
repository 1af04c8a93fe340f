// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "grow.h"
#include "scenario-find.h"
#include "scenario.h"
#include "suggest.h"

void scenario_init(struct scenario *s, const char *const *sections)
{
	memset(s, 0, sizeof(*s));
	s->sections = sections;
}

static void list_finish(struct scenario_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].file);
		free(l->v[i].source);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void compare_clear(struct scenario *s)
{
	for (size_t i = 0; i < s->ncompare; i++)
		free(s->compare[i]);
	s->ncompare = 0;
}

void scenario_finish(struct scenario *s)
{
	const char *const *sections = s->sections;

	list_finish(&s->profile);
	list_finish(&s->file);
	list_finish(&s->set);
	list_finish(&s->validation);
	compare_clear(s);
	free(s->compare_at.file);
	free(s->trace_path);
	free(s->trace_at.key);
	free(s->trace_at.value);
	free(s->trace_at.file);
	free(s->path);
	free(s->profile_name);
	free(s->profile_path);
	free(s->title);
	scenario_init(s, sections);
}

static void verr(struct scenario *s, const char *file, unsigned line,
		 const char *fmt, va_list ap)
{
	int n;

	if (line)
		n = snprintf(s->err, sizeof(s->err), "%s:%u: ", file, line);
	else
		n = snprintf(s->err, sizeof(s->err), "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof(s->err))
		return;
	vsnprintf(s->err + n, sizeof(s->err) - (size_t)n, fmt, ap);
}

static void __attribute__((format(printf, 4, 5)))
err_at(struct scenario *s, const char *file, unsigned line, const char *fmt,
       ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(s, file, line, fmt, ap);
	va_end(ap);
}

void scenario_error_at(struct scenario *s, const struct scenario_setting *at,
		       const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (!at) {
		vsnprintf(s->err, sizeof(s->err), fmt, ap);
		va_end(ap);
		return;
	}
	if (at->line) {
		verr(s, at->file, at->line, fmt, ap);
		va_end(ap);
		return;
	}
	if (!strcmp(at->file, "--set") ||
	    (!strncmp(at->file, "--", 2) && strcmp(at->file + 2, at->key)))
		/* an option that names the key: --vary 'vm.vcpus=4' */
		n = snprintf(s->err, sizeof(s->err), "%s '%s=%s': ", at->file,
			     at->key, at->value);
	else /* an option that sets its own key: --seed '5' */
		n = snprintf(s->err, sizeof(s->err), "%s '%s': ", at->file,
			     at->value);
	if (n >= 0 && (size_t)n < sizeof(s->err))
		vsnprintf(s->err + n, sizeof(s->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

static int list_add(struct scenario_list *l, const char *key, const char *value,
		    const char *file, unsigned line,
		    const struct scenario_annot *a)
{
	struct scenario_setting *e;
	void *v;

	v = grow(l->v, l->n, &l->cap, sizeof(*l->v), 16);
	if (!v)
		return -ENOMEM;
	l->v = v;
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->value = strdup(value);
	e->file = strdup(file);
	e->line = line;
	if (a && a->source)
		e->source = strdup(a->source);
	if (!e->key || !e->value || !e->file ||
	    (a && a->source && !e->source)) {
		free(e->key);
		free(e->value);
		free(e->file);
		free(e->source);
		return -ENOMEM;
	}
	if (a) {
		e->ranged = a->ranged;
		e->log = a->log;
		e->lo = a->lo;
		e->hi = a->hi;
	}
	l->n++;
	return 0;
}

static char *trim(char *p)
{
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return p;
}

/* Keys and section names: letters, digits, '_', '-' and (keys only) '.'. */
static int valid_name(const char *p, int allow_dot)
{
	if (!*p)
		return 0;
	for (; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' &&
		    !(allow_dot && *p == '.'))
			return 0;
	}
	return 1;
}

/* The section of a validation case: the tool's, never the library's. */
static const char validation_section[] = "validation";

static int known_section(const struct scenario *s, const char *name)
{
	if (!strcmp(name, validation_section))
		return 1;
	if (!s->sections)
		return 1;
	for (const char *const *p = s->sections; *p; p++) {
		if (!strcmp(*p, name))
			return 1;
	}
	return 0;
}

/* " (did you mean [NAME]?)" for the known section nearest to @p name,
 * or "". Static storage: one message at a time. */
static const char *suggest_section(const struct scenario *s, const char *name)
{
	static char hint[SUGGEST_MAX + 32];
	struct suggest sg;

	suggest_init(&sg, name);
	for (const char *const *p = s->sections; p && *p; p++)
		suggest_add(&sg, *p);
	suggest_add(&sg, validation_section);
	if (!suggest_best(&sg))
		return "";
	snprintf(hint, sizeof(hint), " (did you mean [%s]?)",
		 suggest_best(&sg));
	return hint;
}

enum file_kind { KIND_SCENARIO, KIND_PROFILE };

/* A whole, finite number. */
static int parse_number(const char *text, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(text, &end);
	if (end == text || *end || errno || !isfinite(*out))
		return -EINVAL;
	return 0;
}

static bool starts_with_word(const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) && (!p[n] || isspace((unsigned char)p[n]));
}

/* "LO..HI [log]" into @p a; returns 0 or -EINVAL. */
static int parse_range(char *text, struct scenario_annot *a)
{
	char *dots = strstr(text, ".."), *hi, *end;

	if (!dots)
		return -EINVAL;
	*dots = '\0';
	hi = dots + 2;
	while (isspace((unsigned char)*hi))
		hi++;
	end = hi + strcspn(hi, " \t");
	if (*end) {
		*end++ = '\0';
		end = trim(end);
		if (*end && strcmp(end, "log"))
			return -EINVAL;
		a->log = *end != '\0';
	}
	if (parse_number(trim(text), &a->lo) || parse_number(trim(hi), &a->hi))
		return -EINVAL;
	return 0;
}

/*
 * Reads what follows a value's first ';' (@p comment, trimmed) into @p a.
 * Returns 1 for "source: ..." or "range ... ; source: ...", 0 for anything
 * else (a plain comment, which only a scenario may have), or -EINVAL with
 * the message set.
 */
static int parse_annot(struct scenario *s, const char *path, unsigned ln,
		       const char *key, const char *value, char *comment,
		       struct scenario_annot *a)
{
	char *rest;
	double v;

	memset(a, 0, sizeof(*a));
	if (!comment)
		return 0;
	if (starts_with_word(comment, "range")) {
		rest = strchr(comment, ';');
		if (rest)
			*rest++ = '\0';
		if (parse_range(comment + 5, a)) {
			err_at(s, path, ln,
			       "'%s': bad range (want 'range LO..HI' or "
			       "'range LO..HI log')",
			       key);
			return -EINVAL;
		}
		if (!(a->lo < a->hi)) {
			err_at(s, path, ln,
			       "'%s': range %g..%g is empty or reversed (an "
			       "exact value needs no range)",
			       key, a->lo, a->hi);
			return -EINVAL;
		}
		if (a->log && !(a->lo > 0)) {
			err_at(s, path, ln, "'%s': a log range needs LO > 0",
			       key);
			return -EINVAL;
		}
		if (parse_number(value, &v) || v < a->lo || v > a->hi) {
			err_at(s, path, ln,
			       "'%s': value '%s' outside its range "
			       "%g..%g",
			       key, value, a->lo, a->hi);
			return -EINVAL;
		}
		a->ranged = true;
		comment = rest ? trim(rest) : NULL;
		if (!comment || strncmp(comment, "source:", 7)) {
			err_at(s, path, ln,
			       "'%s': a range needs '; source: ...' saying "
			       "where it comes from",
			       key);
			return -EINVAL;
		}
	} else if (strncmp(comment, "source:", 7)) {
		return 0;
	}
	a->source = comment + 7;
	while (isspace((unsigned char)*a->source))
		a->source++;
	if (!*a->source) {
		err_at(s, path, ln, "'%s' has an empty source", key);
		return -EINVAL;
	}
	return 1;
}

/* Handles one `key = value` line of a profile. */
static int profile_line(struct scenario *s, const char *path, unsigned ln,
			char *key, char *value, char *comment)
{
	struct scenario_annot a;
	int rc;

	if (strchr(key, '.')) {
		err_at(s, path, ln, "cost name '%s' must not contain '.'", key);
		return -EINVAL;
	}
	if (!strcmp(value, "default")) {
		if (comment) {
			err_at(s, path, ln,
			       "cost '%s' = default takes the library's value, "
			       "range and source: nothing may follow it (a '#' "
			       "note may)",
			       key);
			return -EINVAL;
		}
		memset(&a, 0, sizeof(a));
	} else {
		rc = parse_annot(s, path, ln, key, value, comment, &a);
		if (rc < 0)
			return rc;
		if (!rc) {
			err_at(s, path, ln, "cost '%s' has no '; source: ...'",
			       key);
			return -EINVAL;
		}
	}
	{
		char *full = scenario_join("cost.", key, "");

		if (!full)
			return -ENOMEM;
		rc = list_add(&s->profile, full, value, path, ln, &a);
		free(full);
		return rc;
	}
}

static int set_compare(struct scenario *s, const char *file, unsigned ln,
		       const char *value)
{
	char *copy = strdup(value);
	char *tok, *next;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	compare_clear(s);
	free(s->compare_at.file);
	s->compare_at.file = strdup(file);
	s->compare_at.line = ln;
	if (!s->compare_at.file) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = copy; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		tok = trim(tok);
		if (!valid_name(tok, 0)) {
			err_at(s, file, ln, "bad strategy name '%s' in compare",
			       tok);
			rc = -EINVAL;
			break;
		}
		if (s->ncompare == SCENARIO_COMPARE_MAX) {
			err_at(s, file, ln, "compare lists more than %d names",
			       SCENARIO_COMPARE_MAX);
			rc = -EINVAL;
			break;
		}
		s->compare[s->ncompare] = strdup(tok);
		if (!s->compare[s->ncompare]) {
			rc = -ENOMEM;
			break;
		}
		s->ncompare++;
	}
	free(copy);
	return rc;
}

static int load_file(struct scenario *s, const char *path, enum file_kind kind);

static int set_profile(struct scenario *s, const char *file, unsigned ln,
		       const char *value)
{
	char *path = scenario_resolve_profile(value, s->path);
	int rc;

	if (!path) {
		err_at(s, file, ln, "profile '%s' not found%s", value,
		       scenario_suggest_profile(s->path, value));
		return -ENOENT;
	}
	free(s->profile_name);
	free(s->profile_path);
	list_finish(&s->profile);
	s->profile_name = strdup(value);
	s->profile_path = path;
	s->profile_line = ln;
	if (!s->profile_name)
		return -ENOMEM;
	rc = load_file(s, path, KIND_PROFILE);
	return rc;
}

/* The tool's own keys; returns 1 if @p key was one of them. */
static int tool_key(struct scenario *s, const char *file, unsigned ln,
		    const char *key, const char *value, int *rc)
{
	if (!strcmp(key, "compare")) {
		*rc = set_compare(s, file, ln, value);
		return 1;
	}
	if (!strcmp(key, "title")) {
		free(s->title);
		s->title = strdup(value);
		*rc = s->title ? 0 : -ENOMEM;
		return 1;
	}
	if (!strcmp(key, "profile")) {
		*rc = set_profile(s, file, ln, value);
		return 1;
	}
	if (!strcmp(key, "workload.trace")) {
		*rc = scenario_set_trace(s, file, ln, value);
		return 1;
	}
	return 0;
}

static int scenario_line(struct scenario *s, const char *path, unsigned ln,
			 const char *section, char *key, char *value,
			 char *comment)
{
	struct scenario_annot a;
	char *full;
	int rc;

	if (!section && tool_key(s, path, ln, key, value, &rc))
		return rc;
	full = section ? scenario_join(section, ".", key) : strdup(key);
	if (!full)
		return -ENOMEM;
	if (section && !strcmp(full, "workload.trace")) {
		rc = scenario_set_trace(s, path, ln, value);
		free(full);
		return rc;
	}
	rc = parse_annot(s, path, ln, full, value, comment, &a);
	if (rc >= 0)
		rc = list_add(&s->file, full, value, path, ln, &a);
	free(full);
	return rc;
}

/* A setting "KEY = VALUE" in @p p (cut at its first '='): *@p key and
 * *@p value, trimmed, the key a valid name (dots allowed), the value not
 * empty. Messages name @p file and @p line; a line without '=' is quoted
 * in its message when @p quote, and a bad key's is followed by @p where.
 * Returns 0 or -EINVAL. */
static int split_setting(struct scenario *s, const char *file, unsigned line,
			 char *p, bool quote, const char *where, char **key,
			 char **value)
{
	char *eq = strchr(p, '=');

	if (!eq) {
		if (quote)
			err_at(s, file, line, "missing '=' in '%s'", p);
		else
			err_at(s, file, line,
			       "missing '=' (expected KEY=VALUE)");
		return -EINVAL;
	}
	*eq = '\0';
	*key = trim(p);
	*value = trim(eq + 1);
	if (!valid_name(*key, 1)) {
		err_at(s, file, line, "bad key '%s'%s", *key, where);
		return -EINVAL;
	}
	if (!**value) {
		err_at(s, file, line, "key '%s' has no value", *key);
		return -EINVAL;
	}
	return 0;
}

/* A [validation] line: `key = text`, the text running to the end of the
 * line (it may hold ';' and '#'). */
static int validation_line(struct scenario *s, const char *path, unsigned ln,
			   char *p)
{
	char *key, *value;
	/* dots for observable.N.FIELD (validation.h) */
	int rc = split_setting(s, path, ln, p, true, " in [validation]", &key,
			       &value);

	return rc ? rc : list_add(&s->validation, key, value, path, ln, NULL);
}

static int parse_line(struct scenario *s, const char *path, unsigned ln,
		      enum file_kind kind, char *buf, char *section,
		      size_t section_size, int *have_section)
{
	char *comment = NULL, *p, *key, *value;

	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (kind == KIND_SCENARIO && *have_section && *p && *p != '[' &&
	    *p != '#' && *p != ';' && !strcmp(section, validation_section))
		return validation_line(s, path, ln, p);
	p = buf + strcspn(buf, "#;");
	if (*p) {
		if (*p == ';')
			comment = trim(p + 1);
		*p = '\0';
	}
	p = trim(buf);
	if (!*p)
		return 0;
	if (*p == '[') {
		size_t n = strlen(p);

		if (kind == KIND_PROFILE) {
			err_at(s, path, ln, "a profile has no sections");
			return -EINVAL;
		}
		if (p[n - 1] != ']') {
			err_at(s, path, ln, "section header without ']'");
			return -EINVAL;
		}
		p[n - 1] = '\0';
		p = trim(p + 1);
		if (!valid_name(p, 0) || strlen(p) >= section_size) {
			err_at(s, path, ln, "bad section name '%s'", p);
			return -EINVAL;
		}
		if (!known_section(s, p)) {
			err_at(s, path, ln, "unknown section [%s]%s", p,
			       suggest_section(s, p));
			return -EINVAL;
		}
		snprintf(section, section_size, "%s", p);
		*have_section = 1;
		return 0;
	}
	if (split_setting(s, path, ln, p, true, "", &key, &value))
		return -EINVAL;
	if (kind == KIND_PROFILE)
		return profile_line(s, path, ln, key, value, comment);
	return scenario_line(s, path, ln, *have_section ? section : NULL, key,
			     value, comment);
}

/* The first byte of the @p n bytes at @p p that no text file holds (a
 * control character other than tab, CR and LF), or NULL. */
static const char *binary_byte(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    c == 0x7f)
			return p + i;
	}
	return NULL;
}

/* Whether line 1 (@p n bytes at @p p) starts with a byte order mark;
 * names its encoding in @p enc. */
static bool byte_order_mark(const char *p, size_t n, const char **enc)
{
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		*enc = "UTF-8";
	else if (n >= 2 &&
		 (!memcmp(p, "\xff\xfe", 2) || !memcmp(p, "\xfe\xff", 2)))
		*enc = "UTF-16";
	else
		return false;
	return true;
}

/* Reads @p f to its end; @p path names it in messages. A byte order mark
 * or a byte no text holds is named as such, not read as a key. */
static int load_stream(struct scenario *s, FILE *f, const char *path,
		       enum file_kind kind)
{
	char section[64] = "";
	int have_section = 0;
	unsigned ln = 0;
	char *line = NULL;
	const char *bad, *enc;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		size_t n = (size_t)len;

		ln++;
		if (ln == 1 && byte_order_mark(line, n, &enc)) {
			err_at(s, path, ln,
			       "starts with a %s byte order mark (BOM): save "
			       "it as UTF-8 without one",
			       enc);
			rc = -EINVAL;
			break;
		}
		bad = binary_byte(line, n);
		if (bad) {
			err_at(s, path, ln,
			       "binary data (byte 0x%02x at column %zu): not "
			       "a text file",
			       (unsigned char)*bad, (size_t)(bad - line) + 1);
			rc = -EINVAL;
			break;
		}
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n > SCENARIO_LINE_MAX) {
			err_at(s, path, ln, "line longer than %d characters",
			       SCENARIO_LINE_MAX);
			rc = -E2BIG;
			break;
		}
		rc = parse_line(s, path, ln, kind, line, section,
				sizeof(section), &have_section);
		if (rc)
			break;
	}
	if (!rc && ferror(f)) {
		err_at(s, path, ln + 1, "read error");
		rc = -EIO;
	}
	free(line);
	return rc;
}

static int load_file(struct scenario *s, const char *path, enum file_kind kind)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	int rc;

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		rc = -errno;
		err_at(s, path, 0, "cannot read %s: %s",
		       kind == KIND_PROFILE ? "profile" : "scenario",
		       strerror(errno));
		return rc;
	}
	rc = load_stream(s, f, path, kind);
	fclose(f);
	return rc;
}

/* A path that is no file here, written as the README writes it inside
 * the source tree ("scenarios/kvm-128on12.ini"): if its file name is a
 * shipped scenario, says so and how to name it. True when it said so. */
static bool shipped_path_hint(struct scenario *s, const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	size_t len = strlen(base);
	struct stat st;
	char *found;

	if (!stat(path, &st) || errno != ENOENT || !len)
		return false;
	found = datadir_find("scenarios", base);
	if (!found)
		return false;
	if (len > 4 && !strcmp(base + len - 4, ".ini"))
		len -= 4;
	err_at(s, path, 0,
	       "cannot read scenario: no such file here; the shipped scenario "
	       "of that name is %s: name it without a folder ('%.*s')",
	       found, (int)len, base);
	free(found);
	return true;
}

int scenario_load(struct scenario *s, const char *path)
{
	char hint[SUGGEST_MAX + 32];
	bool bare = !strchr(path, '/');
	char *shipped = NULL, *where;
	struct stat st;

	/* A bare name that is no file here is a shipped scenario. */
	if (bare && stat(path, &st) && errno == ENOENT) {
		shipped = datadir_find("scenarios", path);
		if (!shipped && errno == ENOENT) {
			where = datadir_path("scenarios");
			scenario_suggest_shipped(where, path, hint,
						 sizeof(hint));
			err_at(s, path, 0,
			       "cannot read scenario: no such file here, nor a "
			       "shipped scenario of that name in %s%s",
			       where ? where : "the data directory", hint);
			free(where);
			return -ENOENT;
		}
	}
	if (!bare && shipped_path_hint(s, path))
		return -ENOENT;
	free(s->path);
	s->path = shipped ? shipped : strdup(path);
	if (!s->path)
		return -ENOMEM;
	return load_file(s, s->path, KIND_SCENARIO);
}

int scenario_load_stream(struct scenario *s, FILE *f, const char *path)
{
	free(s->path);
	s->path = strdup(path);
	if (!s->path)
		return -ENOMEM;
	return load_stream(s, f, s->path, KIND_SCENARIO);
}

/* Adds "key=value" as an override; messages name @p label (and @p line
 * when not 0) and the setting remembers @p file and @p line. */
static int add_override(struct scenario *s, const char *arg, const char *label,
			const char *file, unsigned line)
{
	char *copy = strdup(arg);
	char *key, *value;
	int rc;

	if (!copy)
		return -ENOMEM;
	rc = split_setting(s, label, line, copy, false, "", &key, &value);
	if (!rc && !tool_key(s, label, line, key, value, &rc))
		rc = list_add(&s->set, key, value, file, line, NULL);
	free(copy);
	return rc;
}

int scenario_add_override(struct scenario *s, const char *arg)
{
	char *label = scenario_join("--set '", arg, "'");
	int rc;

	if (!label)
		return -ENOMEM;
	rc = add_override(s, arg, label, "--set", 0);
	free(label);
	return rc;
}

int scenario_add_override_at(struct scenario *s, const char *arg,
			     const char *file, unsigned line)
{
	return add_override(s, arg, file, file, line);
}

int scenario_add_compare(struct scenario *s, const char *label,
			 const char *list)
{
	if (!*list) {
		err_at(s, label, 0, "empty list of strategies");
		return -EINVAL;
	}
	return set_compare(s, label, 0, list);
}

void scenario_clear_compare(struct scenario *s)
{
	compare_clear(s);
}

int scenario_add_option(struct scenario *s, const char *option, const char *key,
			const char *value)
{
	size_t n = strlen(option) + strlen(key) + strlen(value) + 6;
	char *label;
	int rc;

	if (!*value) {
		err_at(s, option, 0, "empty value");
		return -EINVAL;
	}
	/* The tool's own keys (compare, profile, title) are no settings:
	 * their messages name the option as scenario_error_at() does. */
	label = malloc(n);
	if (!label)
		return -ENOMEM;
	if (strcmp(option + 2, key))
		snprintf(label, n, "%s '%s=%s'", option, key, value);
	else
		snprintf(label, n, "%s '%s'", option, value);
	if (!tool_key(s, label, 0, key, value, &rc))
		rc = list_add(&s->set, key, value, option, 0, NULL);
	free(label);
	return rc;
}

int scenario_apply(const struct scenario *s, scenario_set_fn set, void *ctx,
		   const struct scenario_setting **bad)
{
	const struct scenario_list *lists[] = { &s->profile, &s->file,
						&s->set };

	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			const struct scenario_setting *e = &lists[l]->v[i];
			int rc = set(ctx, e->key, e->value);

			if (rc) {
				if (bad)
					*bad = e;
				return rc;
			}
		}
	}
	return 0;
}

const struct scenario_setting *scenario_find(const struct scenario *s,
					     const char *key)
{
	const struct scenario_list *lists[] = { &s->set, &s->file,
						&s->profile };

	for (size_t l = 0; l < 3; l++) {
		for (size_t i = lists[l]->n; i-- > 0;) {
			if (!strcmp(lists[l]->v[i].key, key))
				return &lists[l]->v[i];
		}
	}
	return NULL;
}
