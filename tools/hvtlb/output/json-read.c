// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "json-read.h"
#include "parse.h"

/* Memory of a document: blocks chained through their first word. */
struct block {
	struct block *next;
	size_t used, cap;
	max_align_t data[];
};

struct parser {
	const char *s;
	size_t len, pos;
	int depth;
	struct block *mem;
	char *err;
	size_t errlen;
};

static void *arena_alloc(struct parser *p, size_t n)
{
	struct block *b = p->mem;
	size_t a = sizeof(max_align_t);

	n = (n + a - 1) / a * a;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = p->mem;
		b->used = 0;
		b->cap = cap;
		p->mem = b;
	}
	b->used += n;
	return (char *)b->data + b->used - n;
}

static int fail(struct parser *p, const char *what)
{
	if (p->errlen)
		snprintf(p->err, p->errlen, "offset %zu: %s", p->pos, what);
	return -EINVAL;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) &&
	       p->s[p->pos])
		p->pos++;
}

static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unexpected text");
	p->pos += n;
	return 0;
}

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	if (p->len - p->pos < 4)
		return fail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static size_t utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at p->pos (the opening quote); its unescaped text into *out.
 * The text is never longer than its escaped form. */
static int string(struct parser *p, const char **out)
{
	size_t start = ++p->pos, n = 0;
	char *o;

	while (p->pos < p->len && p->s[p->pos] != '"') {
		if (p->s[p->pos] == '\\')
			p->pos++;
		p->pos++;
	}
	if (p->pos >= p->len)
		return fail(p, "unterminated string");
	o = arena_alloc(p, p->pos - start + 1);
	if (!o)
		return -ENOMEM;
	p->pos = start;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos++];
		unsigned cp, lo;

		if (c < 0x20)
			return fail(p, "control character in string");
		if (c != '\\') {
			o[n++] = (char)c;
			continue;
		}
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			o[n++] = (char)c;
			break;
		case 'b':
			o[n++] = '\b';
			break;
		case 'f':
			o[n++] = '\f';
			break;
		case 'n':
			o[n++] = '\n';
			break;
		case 'r':
			o[n++] = '\r';
			break;
		case 't':
			o[n++] = '\t';
			break;
		case 'u':
			if (hex4(p, &cp))
				return -EINVAL;
			if (cp >= 0xdc00 && cp < 0xe000)
				return fail(p, "lone surrogate");
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p->len - p->pos < 6 ||
				    p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u')
					return fail(p, "lone surrogate");
				p->pos += 2;
				if (hex4(p, &lo))
					return -EINVAL;
				if (lo < 0xdc00 || lo >= 0xe000)
					return fail(p, "lone surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (!cp)
				return fail(p, "NUL in string");
			n += utf8(o + n, cp);
			break;
		default:
			return fail(p, "bad escape");
		}
	}
	p->pos++;
	o[n] = '\0';
	*out = o;
	return 0;
}

static size_t digits(const struct parser *p, size_t i)
{
	size_t n = 0;

	while (i + n < p->len && p->s[i + n] >= '0' && p->s[i + n] <= '9')
		n++;
	return n;
}

static int number(struct parser *p, const char **out)
{
	size_t i = p->pos, d;
	char *o;

	if (i < p->len && p->s[i] == '-')
		i++;
	d = digits(p, i);
	if (!d || (d > 1 && p->s[i] == '0'))
		return fail(p, "bad number");
	i += d;
	if (i < p->len && p->s[i] == '.') {
		d = digits(p, ++i);
		if (!d)
			return fail(p, "bad number");
		i += d;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		d = digits(p, i);
		if (!d)
			return fail(p, "bad number");
		i += d;
	}
	o = arena_alloc(p, i - p->pos + 1);
	if (!o)
		return -ENOMEM;
	memcpy(o, p->s + p->pos, i - p->pos);
	o[i - p->pos] = '\0';
	p->pos = i;
	*out = o;
	return 0;
}

static int value(struct parser *p, struct json_value *v);

/* An array or object: elements into a growing vector, then the arena. */
static int container(struct parser *p, struct json_value *v, bool object)
{
	struct json_value *vec = NULL;
	size_t n = 0, cap = 0;
	char close = object ? '}' : ']';
	int rc = 0;

	if (++p->depth > JSON_MAX_DEPTH)
		return fail(p, "nested too deeply");
	p->pos++;
	skip_ws(p);
	if (peek(p) == close) {
		p->pos++;
		goto done;
	}
	for (;;) {
		struct json_value e = { 0 };
		void *nv;

		skip_ws(p);
		if (object) {
			if (peek(p) != '"') {
				rc = fail(p, "expected a member name");
				break;
			}
			rc = string(p, &e.key);
			if (rc)
				break;
			skip_ws(p);
			if (peek(p) != ':') {
				rc = fail(p, "expected ':'");
				break;
			}
			p->pos++;
		}
		rc = value(p, &e);
		if (rc)
			break;
		nv = grow(vec, n, &cap, sizeof(*vec), 8);
		if (!nv) {
			rc = -ENOMEM;
			break;
		}
		vec = nv;
		vec[n++] = e;
		skip_ws(p);
		if (peek(p) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p) == close) {
			p->pos++;
			break;
		}
		rc = fail(p, object ? "expected ',' or '}'"
				    : "expected ',' or ']'");
		break;
	}
done:
	if (!rc && n) {
		v->child = arena_alloc(p, n * sizeof(*vec));
		if (!v->child)
			rc = -ENOMEM;
		else
			memcpy(v->child, vec, n * sizeof(*vec));
	}
	v->n = n;
	v->type = object ? JSON_OBJECT : JSON_ARRAY;
	free(vec);
	p->depth--;
	return rc;
}

static int value(struct parser *p, struct json_value *v)
{
	int c;

	skip_ws(p);
	c = peek(p);
	switch (c) {
	case '{':
		return container(p, v, true);
	case '[':
		return container(p, v, false);
	case '"':
		v->type = JSON_STRING;
		return string(p, &v->text);
	case 't':
		v->type = JSON_BOOL;
		v->boolean = true;
		return literal(p, "true");
	case 'f':
		v->type = JSON_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = JSON_NULL;
		return literal(p, "null");
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			v->type = JSON_NUMBER;
			return number(p, &v->text);
		}
		return fail(p, c < 0 ? "unexpected end" : "unexpected text");
	}
}

void json_free(struct json_doc *d)
{
	struct block *b = d->mem;

	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
	d->mem = NULL;
	d->root = NULL;
}

int json_parse(struct json_doc *d, const char *text, size_t len, char *err,
	       size_t errlen)
{
	struct parser p = {
		.s = text, .len = len, .err = err, .errlen = errlen
	};
	int rc;

	d->root = NULL;
	d->mem = NULL;
	if (errlen)
		err[0] = '\0';
	if (memchr(text, '\0', len))
		return fail(&p, "NUL byte");
	d->root = arena_alloc(&p, sizeof(*d->root));
	if (!d->root)
		return -ENOMEM;
	memset(d->root, 0, sizeof(*d->root));
	rc = value(&p, d->root);
	if (!rc) {
		skip_ws(&p);
		if (p.pos != len)
			rc = fail(&p, "text after the value");
	}
	d->mem = p.mem;
	if (rc)
		json_free(d);
	return rc;
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->child[i].key, key))
			return &v->child[i];
	return NULL;
}

int json_u64(const struct json_value *v, uint64_t *out)
{
	if (!v || v->type != JSON_NUMBER || strpbrk(v->text, "-.eE"))
		return -EINVAL;
	return parse_u64(v->text, out);
}
