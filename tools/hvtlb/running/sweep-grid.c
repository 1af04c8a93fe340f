// SPDX-License-Identifier: MIT
/*
 * The --vary grid of `hvtlb sweep`: each --vary KEY=V1,V2,... is an axis,
 * the grid their cartesian product in row-major order (the last key
 * varies fastest), and each point a scenario with its values set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep.h"

static int parse_vary(struct vary *v, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *save = NULL;

	if (!eq || eq == arg || !eq[1])
		return -EINVAL;
	v->buf = strdup(arg);
	if (!v->buf)
		return -ENOMEM;
	v->buf[eq - arg] = '\0';
	v->key = v->buf;
	for (char *tok = strtok_r(v->buf + (eq - arg) + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (v->n == MAX_VALUES)
			return -E2BIG;
		v->values[v->n++] = tok;
	}
	return v->n ? 0 : -EINVAL;
}

/* --vary @p arg: one more axis. Returns 0, or 2 after printing why. */
int sweep_vary_add(struct sweep_opts *o, const char *arg)
{
	int e;

	if (o->nvary == MAX_VARY)
		return cli_usage_error("sweep", "at most %d --vary options",
				       MAX_VARY);
	e = parse_vary(&o->vary[o->nvary], arg);
	o->nvary++;
	if (e)
		return cli_usage_error("sweep",
				       "--vary '%s': expected "
				       "KEY=V1,V2,... (at most %d "
				       "values)",
				       arg, MAX_VALUES);
	for (size_t k = 0; k + 1 < o->nvary; k++)
		if (!strcmp(o->vary[k].key, o->vary[o->nvary - 1].key))
			return cli_usage_error("sweep", "--vary %s given twice",
					       o->vary[k].key);
	o->npoints *= o->vary[o->nvary - 1].n;
	if (o->npoints > MAX_POINTS)
		return cli_usage_error("sweep", "more than %d grid points",
				       MAX_POINTS);
	return 0;
}

void sweep_vary_finish(struct sweep_opts *o)
{
	for (size_t k = 0; k < o->nvary; k++)
		free(o->vary[k].buf);
}

/* Loads point @p pt's scenario with --set, its --vary values and --seed,
 * and configures its runs. Returns 0 or -errno (message in its sc.err). */
static int configure_point(const struct sweep_opts *o, struct point *pt)
{
	int e = sim_scenario_load(&pt->b.sc, o->path);

	for (size_t k = 0; !e && k < o->nsets; k++)
		e = scenario_add_override(&pt->b.sc, o->sets[k]);
	for (size_t k = 0; !e && k < o->nvary; k++)
		e = scenario_add_option(&pt->b.sc, "--vary", o->vary[k].key,
					o->vary[k].values[pt->idx[k]]);
	if (!e && o->seed)
		e = scenario_add_option(&pt->b.sc, "--seed", "seed", o->seed);
	if (!e)
		e = sim_batch_configure(&pt->b, 1);
	return e;
}

/* Configures every point of this shard: a bad value stops before any
 * run. Returns -1 to go on, or an exit code (message printed). */
int sweep_points_configure(const struct sweep_opts *o, struct point *points)
{
	bool warned[SIM_BATCH_WARNINGS] = { false };

	for (size_t p = 0; p < o->npoints; p++) {
		struct point *pt = &points[p];
		size_t rest = p;

		sim_batch_init(&pt->b);
		for (size_t k = o->nvary; k-- > 0;) {
			pt->idx[k] = rest % o->vary[k].n;
			rest /= o->vary[k].n;
		}
		if (o->shard_n && p % o->shard_n != o->shard_i)
			continue;
		if (configure_point(o, pt)) {
			fprintf(stderr, "%s\n", pt->b.sc.err);
			return CLI_EXIT_USAGE;
		}
		for (size_t w = 0; w < SIM_BATCH_WARNINGS; w++) {
			if (pt->b.warning[w][0] && !warned[w])
				fprintf(stderr, "hvtlb sweep: warning: %s\n",
					pt->b.warning[w]);
			warned[w] |= pt->b.warning[w][0] != '\0';
		}
		pt->configured = 1;
	}
	return -1;
}

/* Frees @p points (NULL: nothing), configured or not. */
void sweep_points_destroy(const struct sweep_opts *o, struct point *points)
{
	if (!points)
		return;
	for (size_t p = 0; p < o->npoints; p++) {
		ensemble_finish(&points[p].e);
		sim_batch_finish(&points[p].b);
	}
	free(points);
}
