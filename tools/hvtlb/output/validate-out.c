// SPDX-License-Identifier: MIT
/*
 * What `hvtlb validate` prints: the summary over the validation cases,
 * and either the table (a row per case, its observables indented under
 * it) or one JSON document (--json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "validate.h"

void validate_summarize(const struct vlist *l, struct summary *s)
{
	double *err = calloc(l->n ? l->n : 1, sizeof(*err));
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		if (r->status == CLI_EXIT_USAGE || r->c.calibration)
			continue;
		s->validation++;
		if (r->status)
			continue;
		s->inside += r->v.inside;
		s->ratios += r->c.ratio;
		s->decided += r->v.decided;
		s->right += r->v.sign_right;
		if (err)
			err[n++] = r->v.rel_error;
		s->observables += r->c.nobs;
		for (size_t j = 0; j < r->c.nobs; j++)
			s->observables_inside += r->obs[j].inside;
	}
	if (n) {
		band_sort(err, n);
		s->median_rel_error = quantile_sorted(err, n, 0.5);
		s->have_median = true;
	}
	free(err);
}

/* The figures of a row from the published value on. */
static void print_verdict(double published, const struct verdict *v, bool ratio)
{
	printf("%9.4g %9.4g %9.4g %9.4g %6s %6.0f%%  %s\n", published,
	       v->band.p5, v->band.p50, v->band.p95, v->inside ? "yes" : "no",
	       100 * v->rel_error,
	       !ratio	       ? "-"
	       : !v->decided   ? "not decided"
	       : v->sign_right ? "decided, right"
			       : "decided, WRONG");
}

/* A case's row of the table, its observables indented under it; @p w
 * the width of the case column. */
static void print_case(const struct vopts *o, const struct vrun *r, int w)
{
	char q[64];

	if (r->status == CLI_EXIT_USAGE) {
		printf("%-*s ERROR (does not load; see stderr)\n", w,
		       r->c.id[0] ? r->c.id : r->path);
		return;
	}
	snprintf(q, sizeof(q), "%s %s", r->c.metric->name,
		 r->c.ratio ? "a/b" : "a");
	if (r->status) {
		printf("%-*s %-5s %-20s %9.4g  ERROR (a run failed; "
		       "see stderr)\n",
		       w, r->c.id, r->c.calibration ? "cal" : "val", q,
		       r->c.published);
		return;
	}
	printf("%-*s %-5s %-20s ", w, r->c.id, r->c.calibration ? "cal" : "val",
	       q);
	print_verdict(r->c.published, &r->v, r->c.ratio);
	if (r->e.ndraws < o->draws)
		printf("  %-*s settled after %zu draws (--converge)\n", w - 2,
		       "", r->e.ndraws);
	if (r->c.superseded_by)
		printf("  %-*s superseded by %s\n", w - 2, "",
		       r->c.superseded_by);
	for (size_t j = 0; j < r->c.nobs; j++) {
		const struct vobservable *ob = &r->c.obs[j];
		char label[32];

		snprintf(label, sizeof(label), "observable %u", ob->number);
		snprintf(q, sizeof(q), "%s %s", ob->metric->name,
			 ob->run == VOBS_RATIO ? "a/b" : ob->run_name);
		printf("  %-*s %-5s %-20s ", w - 2, label, "", q);
		print_verdict(ob->published, &r->obs[j], ob->run == VOBS_RATIO);
	}
}

void validate_print_table(const struct vopts *o, const struct vlist *l,
			  const struct summary *s)
{
	/* the case column as wide as the longest id, so that long names do
	 * not push their row's figures out of line */
	int w = 28;
	size_t cal = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *id = l->v[i].c.id[0] ? l->v[i].c.id : l->v[i].path;

		if (strlen(id) > (size_t)w && strlen(id) < 200)
			w = (int)strlen(id);
		cal += l->v[i].status != CLI_EXIT_USAGE &&
		       l->v[i].c.calibration;
	}
	printf("validation cases: published value against the simulated band "
	       "(p5 / p50 / p95 over %s%llu draws%s%s",
	       o->converge ? "up to " : "", (unsigned long long)o->draws,
	       o->quick ? ", --quick" : "", o->converge ? ", --converge" : "");
	for (size_t i = 0; i < o->nsets; i++)
		printf(", --set %s", o->sets[i]);
	printf(")\n\n");
	printf("%-*s %-5s %-20s %9s %9s %9s %9s %6s %7s  %s\n", w, "case",
	       "kind", "quantity", "published", "p5", "p50", "p95", "inside",
	       "rel.err", "sign (band excludes 1?)");
	for (size_t i = 0; i < l->n; i++)
		print_case(o, &l->v[i], w);
	printf("\n%zu of %zu validation cases inside their band", s->inside,
	       s->validation);
	if (cal)
		printf(" (%zu calibration row%s, kind cal, not counted)", cal,
		       cal == 1 ? "" : "s");
	printf("; median relative error of the p50 ");
	if (s->have_median)
		printf("%.0f%%", 100 * s->median_rel_error);
	else
		printf("-");
	printf("; %zu of %zu ratios decide their sign, %zu of them right\n",
	       s->decided, s->ratios, s->right);
	printf("%zu of %zu further observables of validation cases inside "
	       "their band\n",
	       s->observables_inside, s->observables);
	if (l->superseded)
		printf("%zu superseded case%s left out (earlier versions; "
		       "--all-versions runs them)\n",
		       l->superseded, l->superseded == 1 ? "" : "s");
}

static void json_band(const char *name, const struct band *b)
{
	printf(",\"%s\":{\"p5\":%.6g,\"p50\":%.6g,\"p95\":%.6g}", name, b->p5,
	       b->p50, b->p95);
}

/* The members of a verdict: simulated, nominal, inside, rel_error and,
 * for a ratio, decides_sign and sign_right. */
static void json_verdict(const struct verdict *v, bool ratio)
{
	json_band("simulated", &v->band);
	printf(",\"nominal\":%.6g,\"inside\":%s,\"rel_error\":%.6g", v->nominal,
	       v->inside ? "true" : "false", v->rel_error);
	if (ratio)
		printf(",\"decides_sign\":%s,\"sign_right\":%s",
		       v->decided ? "true" : "false",
		       v->sign_right ? "true" : "false");
}

/* ,"observables":[...]: none for a case that did not load, no band for
 * a case whose run failed. */
static void json_observables(const struct vrun *r)
{
	printf(",\"observables\":[");
	for (size_t j = 0; r->status != CLI_EXIT_USAGE && j < r->c.nobs; j++) {
		const struct vobservable *ob = &r->c.obs[j];

		printf("%s{\"number\":%u,\"title\":", j ? "," : "", ob->number);
		json_string(stdout, ob->title);
		printf(",\"metric\":\"%s\",\"run\":\"%s\",\"published\":%.6g",
		       ob->metric->name, ob->run_name, ob->published);
		if (r->status)
			printf(",\"simulated\":null,\"inside\":false");
		else
			json_verdict(&r->obs[j], ob->run == VOBS_RATIO);
		printf(",\"derivation\":");
		json_string(stdout, ob->derivation);
		printf("}");
	}
	printf("]");
}

void validate_print_json(const struct vopts *o, const struct vlist *l,
			 const struct summary *s)
{
	putchar('{');
	json_meta(stdout, VALIDATE_JSON_SCHEMA);
	printf(",\"cases\":[");
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		printf("%s{\"id\":", i ? "," : "");
		json_string(stdout, r->c.id[0] ? r->c.id : r->path);
		printf(",\"file\":");
		json_string(stdout, r->path);
		if (r->status == CLI_EXIT_USAGE) {
			printf(",\"error\":");
			json_string(stdout, r->err);
			json_observables(r);
			printf("}");
			continue;
		}
		printf(",\"title\":");
		json_string(stdout, r->c.title);
		printf(",\"source\":");
		json_string(stdout, r->c.source);
		printf(",\"kind\":\"%s\",\"quantity\":\"%s\",\"metric\":\"%s\","
		       "\"published\":%.6g",
		       r->c.calibration ? "calibration" : "validation",
		       r->c.ratio ? "ratio" : "value", r->c.metric->name,
		       r->c.published);
		if (r->status) {
			printf(",\"simulated\":null,\"inside\":false,"
			       "\"error\":");
			json_string(stdout, r->err);
			json_observables(r);
			printf("}");
			continue;
		}
		json_verdict(&r->v, r->c.ratio);
		printf(",\"samples\":%zu", r->e.ndraws);
		if (r->c.superseded_by)
			printf(",\"superseded_by\":\"%s\"", r->c.superseded_by);
		json_observables(r);
		printf("}");
	}
	printf("],\"summary\":{\"validation_cases\":%zu,\"inside\":%zu,"
	       "\"median_rel_error\":",
	       s->validation, s->inside);
	if (s->have_median)
		printf("%.6g", s->median_rel_error);
	else
		printf("null");
	printf(",\"ratios\":%zu,\"decides_sign\":%zu,\"sign_right\":%zu,"
	       "\"observables\":%zu,\"observables_inside\":%zu,"
	       "\"superseded_left_out\":%zu},\"set\":[",
	       s->ratios, s->decided, s->right, s->observables,
	       s->observables_inside, l->superseded);
	for (size_t i = 0; i < o->nsets; i++) {
		printf("%s", i ? "," : "");
		json_string(stdout, o->sets[i]);
	}
	printf("]}\n");
}
