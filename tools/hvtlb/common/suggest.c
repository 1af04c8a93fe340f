// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "suggest.h"

#define FAR (SUGGEST_MAX + 1)
/* Scores: a distance, or above every distance when near by prefix only,
 * or NOT_NEAR. */
#define PREFIX_SCORE (2 * SUGGEST_MAX)
#define NOT_NEAR (4 * SUGGEST_MAX)

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned suggest_distance(const char *a, const char *b)
{
	/* Three rows of the dynamic programme: i - 2, i - 1 and i. */
	unsigned row[3][SUGGEST_MAX + 1];
	size_t n = strlen(a), m = strlen(b);

	if (n > SUGGEST_MAX || m > SUGGEST_MAX)
		return FAR;
	for (size_t j = 0; j <= m; j++)
		row[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		unsigned *prev2 = row[(i + 1) % 3], *prev = row[(i + 2) % 3];
		unsigned *cur = row[i % 3];
		int ca = tolower((unsigned char)a[i - 1]);

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= m; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned d = min3(prev[j] + 1, cur[j - 1] + 1,
					  prev[j - 1] + (ca != cb));

			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    cb == tolower((unsigned char)a[i - 2]) &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
	}
	return row[n % 3][m];
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && b[n] &&
	       tolower((unsigned char)a[n]) == tolower((unsigned char)b[n]))
		n++;
	return n;
}

/* NOT_NEAR when @p cand is not near @p word, else a score (lower is
 * nearer). */
static unsigned score(const char *word, const char *cand)
{
	size_t n = strlen(word), m = strlen(cand);
	size_t shorter = n < m ? n : m, common = common_prefix(word, cand);
	unsigned d = suggest_distance(word, cand);
	unsigned limit = (unsigned)(n / 3 > 2 ? n / 3 : 2);

	if (d == 0)
		return NOT_NEAR; /* the word itself is no suggestion */
	if (d <= limit && d < n)
		return d;
	if ((common == shorter && shorter >= 3) || common >= 4)
		return PREFIX_SCORE - (unsigned)common;
	return NOT_NEAR;
}

void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->score = NOT_NEAR;
}

void suggest_add(struct suggest *s, const char *candidate)
{
	unsigned sc;

	if (!candidate || !s->word)
		return;
	sc = score(s->word, candidate);
	if (sc < s->score) {
		s->score = sc;
		s->best = candidate;
	}
}

const char *suggest_best(const struct suggest *s)
{
	return s->best;
}

const char *suggest_hint(const struct suggest *s, char *buf, size_t len)
{
	if (!len)
		return "";
	if (s->best)
		snprintf(buf, len, " (did you mean '%s'?)", s->best);
	else
		buf[0] = '\0';
	return buf;
}
