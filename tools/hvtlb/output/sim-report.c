// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "json.h"
#include "sim-report.h"

double sim_ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* ------------------------------------------------------------ table */

#define OFF(field) offsetof(struct hvtlb_sim_results, field)

enum row_type { ROW_U64, ROW_DOUBLE2, ROW_DOUBLE4 };

/* One row of the table: a field of the results and, when it has one, the
 * metric whose band goes beside it. */
struct row {
	const char *label;
	size_t offset;
	enum row_type type;
	const char *metric;
};

static void print_band_cell(const struct band *bd, enum row_type type)
{
	char cell[96];

	if (type == ROW_U64)
		snprintf(cell, sizeof(cell), "%.0f / %.0f / %.0f", bd->p5,
			 bd->p50, bd->p95);
	else
		snprintf(cell, sizeof(cell), "%.4g / %.4g / %.4g", bd->p5,
			 bd->p50, bd->p95);
	printf("  %-28s", cell);
}

/* The mark after a nominal value outside its band, and its footnote. */
#define OUTSIDE_MARK '*'
static const char outside_note[] =
	"* the nominal run (every uncertain parameter at its nominal value)\n"
	"  lies outside the p5..p95 band of the draws: it is not a typical\n"
	"  outcome of the documented ranges; read the band, not the nominal\n"
	"  figure (docs/uncertainty.md).\n";

/* With bands, each nominal value is followed by a mark column: ' ', or
 * OUTSIDE_MARK when it lies outside its band (counted in *@p marks). */
static void print_row(const struct sim_batch *b, const struct ensemble *e,
		      const struct row *row, unsigned *marks)
{
	const struct counter *ctr =
		row->label ? NULL : counter_find(row->offset);
	const char *label = ctr ? ctr->m.label : row->label;
	const char *metric = ctr ? ctr->m.name : row->metric;
	const struct metric *m = metric ? metric_find(metric) : NULL;
	int w = e ? 13 : 14;

	printf("%-34s", label);
	for (size_t i = 0; i < b->nruns; i++) {
		const char *p = (const char *)b->res[i] + row->offset;
		double v = row->type == ROW_U64 ? (double)*(const uint64_t *)p
						: *(const double *)p;
		struct band bd;
		char mark = ' ';

		if (e && m) {
			ensemble_band(e, i, m, &bd);
			if (!band_contains(&bd, v)) {
				mark = OUTSIDE_MARK;
				++*marks;
			}
		}
		if (row->type == ROW_U64)
			printf(" %*llu", w,
			       (unsigned long long)*(const uint64_t *)p);
		else if (row->type == ROW_DOUBLE2)
			printf(" %*.2f", w, v);
		else
			printf(" %*.4f", w, v);
		if (e)
			putchar(mark);
		if (e && m)
			print_band_cell(&bd, row->type);
		else if (e)
			printf("  %-28s", "");
	}
	putchar('\n');
}

static const char *exit_name(unsigned k)
{
	return hvtlb_sim_exit_name((enum hvtlb_sim_exit)k);
}

static const char *ipi_name(unsigned k)
{
	return hvtlb_sim_ipi_name((enum hvtlb_sim_ipi_purpose)k);
}

/* Row labels of the per-delivery counters ("  via kvm-pv"). */
static const char *delivery_ipis_name(unsigned k)
{
	static const char *const names[] = {
#define HVTLB_X_(n, s) "via " s,
		HVTLB_SIM_IPI_DELIVERY_MAP(HVTLB_X_)
#undef HVTLB_X_
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static const char *delivery_exits_name(unsigned k)
{
	static const char *const names[] = {
#define HVTLB_X_(n, s) "send exits via " s,
		HVTLB_SIM_IPI_DELIVERY_MAP(HVTLB_X_)
#undef HVTLB_X_
	};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static const char *flush_name(unsigned k)
{
	return hvtlb_sim_flush_name((enum hvtlb_sim_flush_kind)k);
}

/* Rows for a per-kind array, skipping kinds that are zero in every run;
 * with @p metric_prefix, kind NAME has the band of metric PREFIX NAME. */
static void print_kind_rows(const struct sim_batch *b, const struct ensemble *e,
			    size_t offset, size_t count,
			    const char *(*name)(unsigned),
			    const char *metric_prefix, unsigned *marks)
{
	for (size_t k = 0; k < count; k++) {
		char label[64], metric[64];
		struct row row = { label, offset + k * sizeof(uint64_t),
				   ROW_U64, NULL };
		int any = 0;

		for (size_t i = 0; i < b->nruns; i++) {
			const uint64_t *v =
				(const uint64_t *)((const char *)b->res[i] +
						   offset);
			any |= v[k] != 0;
		}
		if (!any)
			continue;
		snprintf(label, sizeof(label), "  %s", name((unsigned)k));
		if (metric_prefix) {
			snprintf(metric, sizeof(metric), "%s%s", metric_prefix,
				 name((unsigned)k));
			row.metric = metric;
		}
		print_row(b, e, &row, marks);
	}
}

/* IPIs and send exits by delivery, after the purposes: only when some
 * run sent an IPI other than by ICR writes (a table of the default
 * delivery stays as it was). */
static void print_delivery_rows(const struct sim_batch *b,
				const struct ensemble *e, unsigned *marks)
{
	bool other = false;

	for (size_t i = 0; i < b->nruns; i++)
		for (int k = 1; k < HVTLB_SIM_IPI_DELIVERY_COUNT_; k++)
			other |= b->res[i]->ipis_by_delivery[k] ||
				 b->res[i]->ipi_exits[k];
	if (!other)
		return;
	print_kind_rows(b, e, OFF(ipis_by_delivery),
			HVTLB_SIM_IPI_DELIVERY_COUNT_, delivery_ipis_name, NULL,
			marks);
	print_kind_rows(b, e, OFF(ipi_exits), HVTLB_SIM_IPI_DELIVERY_COUNT_,
			delivery_exits_name, NULL, marks);
}

/* The delivery each run's guest used, when guest.kernel derived it (a
 * table without guest.kernel stays as it was), and why, once per reason. */
static void print_delivery_origin(const struct sim_batch *b,
				  const struct ensemble *e)
{
	bool derived = false;

	for (size_t i = 0; i < b->nruns; i++)
		derived |= b->res[i]->ipi_delivery_origin ==
			   HVTLB_SIM_ORIGIN_DERIVED;
	if (!derived)
		return;
	printf("%-34s", "IPI delivery (guest.kernel)");
	for (size_t i = 0; i < b->nruns; i++) {
		const char *n =
			hvtlb_sim_ipi_delivery_name(b->res[i]->ipi_delivery);

		printf(" %14s", n ? n : "?");
		if (e)
			printf("  %-28s", "");
	}
	putchar('\n');
	for (size_t i = 0; i < b->nruns; i++) {
		const char *why = b->res[i]->ipi_delivery_why;
		bool seen = false;

		for (size_t j = 0; j < i && why; j++)
			seen |= b->res[j]->ipi_delivery_why &&
				!strcmp(b->res[j]->ipi_delivery_why, why);
		if (why && *why && !seen)
			printf("  %s\n", why);
	}
}

/* Per VM, the shares of the run during which none / some / all of its
 * vCPUs were on a pCPU. */
static void print_corun(const struct sim_batch *b, const struct ensemble *e)
{
	uint32_t nvms = b->nruns ? b->res[0]->nvms : 0;

	if (!nvms)
		return;
	printf("VM time with none/some/all vCPUs on\n");
	for (uint32_t vm = 0; vm < nvms && vm < 8; vm++) {
		printf("  vm %-29u", vm);
		for (size_t i = 0; i < b->nruns; i++) {
			const struct hvtlb_sim_results *r = b->res[i];
			char cell[32];

			if (vm >= r->nvms)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "%.2f/%.2f/%.2f",
					 r->corun[vm].none, r->corun[vm].some,
					 r->corun[vm].all);
			printf(" %14s", cell);
			if (e)
				printf("  %-28s", "");
		}
		putchar('\n');
	}
	if (nvms > 8)
		printf("  (%u more VMs in --json)\n", nvms - 8);
}

/* One row of a target table of a run: its k-th state. */
typedef const struct hvtlb_sim_target_stats *(*target_row_fn)(
	const struct hvtlb_sim_results *r, int k);

static const struct hvtlb_sim_target_stats *
target_by_state(const struct hvtlb_sim_results *r, int k)
{
	return &r->targets[k];
}

static const struct hvtlb_sim_target_stats *
target_by_lock(const struct hvtlb_sim_results *r, int k)
{
	return &r->ipi_lock[k];
}

/* A table of @p n target states titled @p title: for each state, how many
 * were posted, and their acknowledgement latency p50 / p99; printed only
 * when a run posted to a state from @p first on. */
static void print_target_table(const struct sim_batch *b,
			       const struct ensemble *e, const char *title,
			       int first, int n, const char *(*name)(int),
			       target_row_fn row)
{
	bool any = false;

	for (size_t i = 0; i < b->nruns; i++)
		for (int k = first; k < n; k++)
			any |= row(b->res[i], k)->posted != 0;
	if (!any)
		return;
	printf("%s\n", title);
	for (int k = 0; k < n; k++) {
		char label[64];

		snprintf(label, sizeof(label), "  %s", name(k));
		printf("%-34s", label);
		for (size_t i = 0; i < b->nruns; i++) {
			printf(" %14llu",
			       (unsigned long long)row(b->res[i], k)->posted);
			if (e)
				printf("  %-28s", "");
		}
		putchar('\n');
		printf("%-34s", "    ack p50/p99 (us)");
		for (size_t i = 0; i < b->nruns; i++) {
			const struct hvtlb_sim_target_stats *t =
				row(b->res[i], k);
			char cell[40];

			snprintf(cell, sizeof(cell), "%.1f/%.0f", t->ack_us_p50,
				 t->ack_us_p99);
			printf(" %14s", cell);
			if (e)
				printf("  %-28s", "");
		}
		putchar('\n');
	}
}

static const char *state_name(int k)
{
	return hvtlb_sim_target_name((enum hvtlb_sim_target_state)k);
}

static const char *lock_name(int k)
{
	return hvtlb_sim_target_lock_name((enum hvtlb_sim_target_lock)k);
}

/* Flush targets by what they were doing when the flush was posted, then
 * (with the guest's PV spinlock) flush IPIs by where their target stood
 * with the lock. */
static void print_targets(const struct sim_batch *b, const struct ensemble *e)
{
	print_target_table(b, e, "flush targets, by state when posted", 0,
			   HVTLB_SIM_TARGET_COUNT_, state_name,
			   target_by_state);
	print_target_table(b, e, "flush IPIs, by the target's PV spinlock",
			   HVTLB_SIM_TARGET_LOCK_NONE + 1,
			   HVTLB_SIM_TARGET_LOCK_COUNT_, lock_name,
			   target_by_lock);
}

static void print_header(const struct sim_batch *b, const struct ensemble *e)
{
	const struct scenario *sc = &b->sc;

	if (sc->title)
		printf("%s\n", sc->title);
	printf("scenario %s", sc->path);
	if (sc->profile_name)
		printf(", profile %s", sc->profile_name);
	printf(", seed %llu\n", (unsigned long long)b->res[0]->seed);
	if (e) {
		const struct unc_plan *u = e->plan;
		size_t col = 9;

		printf("bands: p5 / p50 / p95 over %zu draws (Latin hypercube, "
		       "seed %llu); the first\ncolumn of each strategy is the "
		       "nominal run. %zu parameters varied:\n ",
		       u->ndraws, (unsigned long long)b->cfg[0].seed, u->n);
		col = 1;
		for (size_t j = 0; j < u->n; j++) {
			size_t len = strlen(u->p[j].key) + 2;

			if (col + len > 78) {
				printf("\n ");
				col = 1;
			}
			printf(" %s%s", u->p[j].key, j + 1 < u->n ? "," : "");
			col += len;
		}
		putchar('\n');
	}
	putchar('\n');
}

/* "" or the mark of a nominal ratio outside its band (counted). */
static const char *ratio_mark(const struct band *bd, double v, unsigned *marks)
{
	static const char mark[] = { OUTSIDE_MARK, '\0' };

	if (band_contains(bd, v))
		return "";
	++*marks;
	return mark;
}

static void print_ratio_lines(const struct sim_batch *b,
			      const struct ensemble *e, unsigned *marks)
{
	const struct hvtlb_sim_results *base = b->res[0];

	putchar('\n');
	for (size_t i = 1; i < b->nruns; i++) {
		double rr = sim_ratio(base->real_s, b->res[i]->real_s);
		double rs = sim_ratio(base->sys_s, b->res[i]->sys_s);
		double rc = sim_ratio(base->sys_consumed_s,
				      b->res[i]->sys_consumed_s);
		struct band r, s, c;

		if (!e) {
			printf("%s / %s: real %.2fx, sys %.2fx (consumed "
			       "%.2fx)\n",
			       sim_strategy_name(base),
			       sim_strategy_name(b->res[i]), rr, rs, rc);
			continue;
		}
		ensemble_ratio_band(e, 0, i, metric_find("real_s"), &r);
		ensemble_ratio_band(e, 0, i, metric_find("sys_s"), &s);
		ensemble_ratio_band(e, 0, i, metric_find("sys_consumed_s"), &c);
		printf("%s / %s: real %.2fx%s, sys %.2fx%s (consumed %.2fx%s)"
		       "\n  p5 / p50 / p95: real %.2f / %.2f / %.2f, sys "
		       "%.2f / %.2f / %.2f, consumed %.2f / %.2f / %.2f\n",
		       sim_strategy_name(base), sim_strategy_name(b->res[i]),
		       rr, ratio_mark(&r, rr, marks), rs,
		       ratio_mark(&s, rs, marks), rc, ratio_mark(&c, rc, marks),
		       r.p5, r.p50, r.p95, s.p5, s.p50, s.p95, c.p5, c.p50,
		       c.p95);
	}
}

/* One line per recorded violation: which vCPU, which address, how stale
 * (entry generation < covered one), and for a latent one which flush
 * left it and why it counts. */
static void print_violation(const struct hvtlb_sim_results *r,
			    const struct hvtlb_sim_violation *x)
{
	const char *why = hvtlb_sim_stale_name(x->why);

	printf("violation (%s): vm %u vcpu %u address 0x%llx generation %u < "
	       "%u, ",
	       sim_strategy_name(r), x->vm, x->vcpu,
	       (unsigned long long)x->address, x->generation, x->covered);
	if (x->why == HVTLB_SIM_STALE_USED)
		printf("used");
	else
		printf("latent (%s) after shootdown %llu from vcpu %u",
		       why ? why : "?", (unsigned long long)x->shootdown,
		       x->initiator);
	printf(" at %.9f s\n", x->time_s);
}

/* A row of counter @p field: its label and metric from the list. */
#define COUNTER_ROW(field) COUNTER_ROW_AT(OFF(field))
#define COUNTER_ROW_AT(offset)                                                 \
	{                                                                      \
		NULL, offset, ROW_U64, NULL                                    \
	}

/* The rows, in their places; counters with a label that no table names
 * follow the host rows in list order. */
static const struct row head[] = {
	{ "real time (s)", OFF(real_s), ROW_DOUBLE4, "real_s" },
	{ "guest user time (s)", OFF(user_s), ROW_DOUBLE4, "user_s" },
	{ "guest sys time (s)", OFF(sys_s), ROW_DOUBLE4, "sys_s" },
	{ "  consumed on host CPUs (s)", OFF(sys_consumed_s), ROW_DOUBLE4,
	  "sys_consumed_s" },
	COUNTER_ROW(shootdowns),
	{ "shootdown latency p50 (us)", OFF(latency_us_p50), ROW_DOUBLE2,
	  "latency_us_p50" },
	{ "shootdown latency p99 (us)", OFF(latency_us_p99), ROW_DOUBLE2,
	  "latency_us_p99" },
	{ "shootdown latency max (us)", OFF(latency_us_max), ROW_DOUBLE2,
	  "latency_us_max" },
	COUNTER_ROW(vm_exits_total),
};
static const struct row sent[] = { COUNTER_ROW(ipis_sent) };
static const struct row mid[] = {
	COUNTER_ROW(ipis_delivered),
	COUNTER_ROW(hypercalls),
	COUNTER_ROW(deferred_marked),
};
static const struct row tail[] = {
	COUNTER_ROW(pages_invalidated), COUNTER_ROW(page_faults),
	COUNTER_ROW(tlb_l1_hits),	COUNTER_ROW(tlb_l2_hits),
	COUNTER_ROW(tlb_misses),	COUNTER_ROW(latent_violations),
	COUNTER_ROW(used_violations),
};
/* Not shown: the sum of latent and used. */
static const struct row unshown[] = { COUNTER_ROW(violations) };
static const struct row host[] = {
	COUNTER_ROW(vcpu_migrations),
	{ "waiting for flush acks (share)", OFF(ack_wait_share), ROW_DOUBLE4,
	  "ack_wait_share" },
};

#define ROWS(t)                                                                \
	{                                                                      \
		t, sizeof(t) / sizeof(t[0])                                    \
	}
static const struct {
	const struct row *row;
	size_t n;
} tables[] = { ROWS(head), ROWS(sent), ROWS(mid),
	       ROWS(tail), ROWS(host), ROWS(unshown) };

/* Whether a table has a row for the field at @p offset. */
static bool placed(size_t offset)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (size_t k = 0; k < tables[t].n; k++)
			if (tables[t].row[k].offset == offset)
				return true;
	return false;
}

static void print_rows(const struct sim_batch *b, const struct ensemble *e,
		       const struct row *rows, size_t n, unsigned *marks)
{
	for (size_t k = 0; k < n; k++)
		print_row(b, e, &rows[k], marks);
}

/* A replayed trace compared under several strategies asks one question
 * (would another flush pay for this workload on this machine?): the
 * ratios come first, with the machine they hold for. */
static void print_answer(const struct sim_batch *b, const struct ensemble *e,
			 unsigned *marks)
{
	const struct hvtlb_sim_config *c = &b->cfg[0];
	uint64_t vcpus = (uint64_t)c->vms * c->vcpus;

	printf("the answer, for %llu vCPU%s on %u pCPU%s (%.2f vCPUs per "
	       "pCPU):",
	       (unsigned long long)vcpus, vcpus == 1 ? "" : "s", c->pcpus,
	       c->pcpus == 1 ? "" : "s", (double)vcpus / c->pcpus);
	print_ratio_lines(b, e, marks);
	putchar('\n');
}

void sim_report_table(const struct sim_batch *b, const struct ensemble *e)
{
	const struct counter *ctr;
	unsigned marks = 0;
	bool answer_first = b->script && b->nruns > 1;

	print_header(b, e);
	if (answer_first)
		print_answer(b, e, &marks);
	printf("%-34s", "strategy");
	for (size_t i = 0; i < b->nruns; i++) {
		printf(" %14s", sim_strategy_name(b->res[i]));
		if (e)
			printf("  %-28s", "p5 / p50 / p95");
	}
	putchar('\n');
	print_rows(b, e, head, sizeof(head) / sizeof(head[0]), &marks);
	print_kind_rows(b, e, OFF(vm_exits), HVTLB_SIM_EXIT_COUNT_, exit_name,
			NULL, &marks);
	print_rows(b, e, sent, 1, &marks);
	print_kind_rows(b, e, OFF(ipis), HVTLB_SIM_IPI_COUNT_, ipi_name,
			"ipis_", &marks);
	print_delivery_origin(b, e);
	print_delivery_rows(b, e, &marks);
	print_rows(b, e, mid, sizeof(mid) / sizeof(mid[0]), &marks);
	printf("flushes on vCPUs, by kind\n");
	print_kind_rows(b, e, OFF(flushes), HVTLB_SIM_FLUSH_COUNT_, flush_name,
			NULL, &marks);
	print_rows(b, e, tail, sizeof(tail) / sizeof(tail[0]), &marks);
	print_rows(b, e, host, sizeof(host) / sizeof(host[0]), &marks);
	for (size_t k = 0; (ctr = counter_at(k)); k++) {
		const struct row row = COUNTER_ROW_AT(ctr->offset);

		if (ctr->m.label && !placed(ctr->offset))
			print_row(b, e, &row, &marks);
	}
	print_corun(b, e);
	print_targets(b, e);

	if (b->nruns > 1 && !answer_first)
		print_ratio_lines(b, e, &marks);
	if (marks)
		printf("\n%s", outside_note);
	for (size_t i = 0; i < b->nruns; i++) {
		const struct hvtlb_sim_results *r = b->res[i];

		for (uint32_t v = 0; v < r->nrecorded; v++)
			print_violation(r, &r->violation[v]);
	}
}

/* ------------------------------------------------------------- JSON */

static void json_band(const struct band *bd)
{
	printf("{\"p5\":%.6g,\"p50\":%.6g,\"p95\":%.6g}", bd->p5, bd->p50,
	       bd->p95);
}

static void json_uncertainty(const struct ensemble *e)
{
	printf("\"uncertainty\":{\"samples\":%zu,\"parameters\":[",
	       e->plan->ndraws);
	for (size_t j = 0; j < e->plan->n; j++) {
		if (j)
			putchar(',');
		json_string(stdout, e->plan->p[j].key);
	}
	printf("]}");
}

/* Run @p i's object, with its bands before the closing brace. */
static int json_run(const struct sim_batch *b, const struct ensemble *e,
		    size_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (!e)
		return hvtlb_sim_results_write_json(b->res[i], stdout);
	mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	if (hvtlb_sim_results_write_json(b->res[i], mem) || fclose(mem) ||
	    !len || buf[len - 1] != '}') {
		free(buf);
		return -EIO;
	}
	fwrite(buf, 1, len - 1, stdout);
	free(buf);
	printf(",\"bands\":{");
	for (size_t k = 0; k < metric_count(); k++) {
		const struct metric *m = metric_at(k);
		struct band bd;

		ensemble_band(e, i, m, &bd);
		printf("%s\"%s\":", k ? "," : "", m->name);
		json_band(&bd);
	}
	printf("}}");
	return 0;
}

int sim_report_json(const struct sim_batch *b, const struct ensemble *e)
{
	const struct scenario *sc = &b->sc;

	putchar('{');
	json_meta(stdout, SIM_JSON_SCHEMA);
	/* How this machine ran it, apart from the results, which it never
	 * changes (docs/json.md). */
	printf(",\"execution\":{\"threads\":%u}", b->cfg[0].threads);
	printf(",\"scenario\":");
	json_string(stdout, sc->path);
	printf(",\"title\":");
	json_string(stdout, sc->title);
	printf(",\"profile\":");
	json_string(stdout, sc->profile_name);
	printf(",\"runs\":[");
	for (size_t i = 0; i < b->nruns; i++) {
		if (i)
			putchar(',');
		if (json_run(b, e, i))
			return -EIO;
	}
	printf("],\"ratios\":[");
	for (size_t i = 1; i < b->nruns; i++) {
		printf("%s{\"over\":", i > 1 ? "," : "");
		json_string(stdout, sim_strategy_name(b->res[0]));
		printf(",\"under\":");
		json_string(stdout, sim_strategy_name(b->res[i]));
		printf(",\"real\":%.6g,\"sys\":%.6g,\"sys_consumed\":%.6g",
		       sim_ratio(b->res[0]->real_s, b->res[i]->real_s),
		       sim_ratio(b->res[0]->sys_s, b->res[i]->sys_s),
		       sim_ratio(b->res[0]->sys_consumed_s,
				 b->res[i]->sys_consumed_s));
		if (e) {
			struct band r, s, c;

			ensemble_ratio_band(e, 0, i, metric_find("real_s"), &r);
			ensemble_ratio_band(e, 0, i, metric_find("sys_s"), &s);
			ensemble_ratio_band(e, 0, i,
					    metric_find("sys_consumed_s"), &c);
			printf(",\"bands\":{\"real\":");
			json_band(&r);
			printf(",\"sys\":");
			json_band(&s);
			printf(",\"sys_consumed\":");
			json_band(&c);
			putchar('}');
		}
		putchar('}');
	}
	putchar(']');
	if (e) {
		putchar(',');
		json_uncertainty(e);
	}
	printf("}\n");
	return 0;
}

/* -------------------------------------------------------------- CSV */

static void csv_row(const char *path, const struct hvtlb_sim_results *r)
{
	char cell[CSV_CELL_MAX];

	csv_field(stdout, path);
	putchar(',');
	csv_field(stdout, sim_strategy_name(r));
	printf(",%llu", (unsigned long long)r->seed);
	for (size_t k = 0; k < CSV_NCOLUMNS; k++) {
		csv_column_format(&csv_columns[k], r, cell, sizeof(cell));
		putchar(',');
		fputs(cell, stdout);
	}
}

void sim_report_csv(const struct sim_batch *b, const struct ensemble *e)
{
	const struct unc_plan *u = e ? e->plan : NULL;
	char text[32];

	fputs("scenario,strategy,seed", stdout);
	for (size_t k = 0; k < CSV_NCOLUMNS; k++)
		printf(",%s", csv_columns[k].name);
	if (u) {
		printf(",draw");
		for (size_t j = 0; j < u->n; j++) {
			putchar(',');
			csv_field(stdout, u->p[j].key);
		}
	}
	putchar('\n');
	for (size_t row = 0; row <= (e ? e->ndraws : 0); row++) {
		for (size_t i = 0; i < b->nruns; i++) {
			const struct hvtlb_sim_results *r =
				row ? ensemble_job(e, row, i)->res : b->res[i];

			csv_row(b->sc.path, r);
			if (u) {
				printf(",%zu", row);
				for (size_t j = 0; j < u->n; j++) {
					double x =
						row ? unc_value(u, row - 1, j)
						    : u->p[j].nominal;

					unc_format(&u->p[j], x, text,
						   sizeof(text));
					putchar(',');
					csv_field(stdout, text);
				}
			}
			putchar('\n');
		}
	}
}
