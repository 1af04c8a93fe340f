/* SPDX-License-Identifier: MIT */
/*
 * Did-you-mean: the candidate nearest to a misspelt word (a key, a
 * section, a subcommand, a strategy, a profile, an option), for error
 * messages like "unknown key 'vm.vcpu' (did you mean 'vm.vcpus'?)".
 *
 * A candidate is near when its edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours; case-insensitive) is at most
 * a third of the word's length (at least 2), or when one is a prefix of
 * the other (3 characters at least) or they share a 4-character prefix.
 * The smallest distance wins; a tie keeps the first candidate.
 *
 * Thread rules: a struct suggest belongs to one thread. Nothing here
 * allocates or prints.
 */
#ifndef HVTLB_TOOL_SUGGEST_H
#define HVTLB_TOOL_SUGGEST_H

#include <stddef.h>

/** The longest word or candidate compared; longer ones never match. */
#define SUGGEST_MAX 64

struct suggest {
	const char *word;
	const char *best; /**< NULL until a near candidate was offered */
	unsigned score;
};

/** Starts a search for the candidate nearest to @p word (kept, not
 *  copied). */
void suggest_init(struct suggest *s, const char *word);

/** Offers @p candidate (kept, not copied: it must outlive @p s). */
void suggest_add(struct suggest *s, const char *candidate);

/** The nearest candidate offered so far, or NULL if none is near. */
const char *suggest_best(const struct suggest *s);

/**
 * Edit distance between @p a and @p b (optimal string alignment,
 * case-insensitive), or SUGGEST_MAX + 1 when either is longer than
 * SUGGEST_MAX.
 */
unsigned suggest_distance(const char *a, const char *b);

/**
 * Formats " (did you mean 'BEST'?)" into @p buf, or "" when @p s has no
 * near candidate; returns @p buf, for use as a "%s" argument.
 */
const char *suggest_hint(const struct suggest *s, char *buf, size_t len);

/* The candidates below come from the library's tables (suggest-sim.c). */

/** Offers every scenario key the library knows (HVTLB_SIM_KEY_MAP and
 *  "cost.<name>"), and the tool's own keys (profile, compare, title). */
void suggest_add_keys(struct suggest *s);

/** Offers every [section] name of the keys suggest_add_keys() offers. */
void suggest_add_sections(struct suggest *s);

/** Offers every strategy name (hvtlb_strategy_name()). */
void suggest_add_strategies(struct suggest *s);

#endif
