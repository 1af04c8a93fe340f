// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/core.h>

#include "progress.h"
#include "sim-run.h"
#include "suggest.h"

#define MAX_SECTIONS 32

const char *const *sim_sections(void)
{
	static char names[MAX_SECTIONS][32];
	static const char *list[MAX_SECTIONS + 1];
	static size_t n;
	const char *key;

	if (n)
		return list;
	for (size_t i = 0; (key = hvtlb_sim_config_key_name(i)); i++) {
		const char *dot = strchr(key, '.');
		size_t len = dot ? (size_t)(dot - key) : 0;
		size_t j;

		if (!len || len >= sizeof(names[0]))
			continue;
		for (j = 0; j < n; j++) {
			if (strlen(names[j]) == len &&
			    !strncmp(names[j], key, len))
				break;
		}
		if (j < n || n == MAX_SECTIONS)
			continue;
		memcpy(names[n], key, len);
		names[n][len] = '\0';
		list[n] = names[n];
		n++;
	}
	list[n] = NULL;
	return list;
}

void sim_batch_init(struct sim_batch *b)
{
	memset(b, 0, sizeof(*b));
	scenario_init(&b->sc, sim_sections());
}

void sim_batch_finish(struct sim_batch *b)
{
	for (size_t i = 0; i < b->nruns; i++)
		hvtlb_sim_results_destroy(b->res[i]);
	if (b->script_free)
		b->script_free(b->script_owner);
	scenario_finish(&b->sc);
	memset(b, 0, sizeof(*b));
}

unsigned sim_host_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > (long)HVTLB_SIM_MAX_THREADS)
		return HVTLB_SIM_MAX_THREADS;
	return (unsigned)n;
}

const char *sim_strategy_name(const struct hvtlb_sim_results *r)
{
	const char *name = hvtlb_strategy_name(r->strategy);

	return name ? name : "?";
}

struct apply_ctx {
	struct hvtlb_sim_config *cfg;
	int skip_strategy;
};

int sim_cost_index(const char *key, size_t *index)
{
	const char *name;

	if (strncmp(key, "cost.", 5))
		return -ENOENT;
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++) {
		if (!strcmp(key + 5, name)) {
			*index = i;
			return 0;
		}
	}
	return -ENOENT;
}

static int apply_one(void *data, const char *key, const char *value)
{
	struct apply_ctx *ctx = data;

	if (ctx->skip_strategy && !strcmp(key, "strategy"))
		return 0;
	return hvtlb_sim_config_set(ctx->cfg, key, value);
}

/* A boolean key lists its canonical values and takes every boolean word. */
static bool key_is_bool(const struct hvtlb_sim_key *k)
{
	return !strcmp(k->type, "BOOL") ||
	       (!strcmp(k->type, "KNOB") && hvtlb_sim_key_value(k, 0));
}

void sim_key_accepts(const struct hvtlb_sim_key *k, char *buf, size_t len)
{
	bool words = key_is_bool(k);
	const char *v;
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0;
	     (v = words ? hvtlb_bool_word(i) : hvtlb_sim_key_value(k, i)); i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      i ? "|" : "", v);
	if (n)
		return;
	if (!strcmp(k->type, "KNOB"))
		snprintf(buf, len, "count");
	else if (!strcmp(k->type, "KVER"))
		snprintf(buf, len, "any|MAJOR.MINOR");
	else if (!strcmp(k->type, "DOUBLE"))
		snprintf(buf, len, "%.10g..%.10g", k->min, k->max);
	else if (!strcmp(k->type, "U64") && k->max >= 1.8e19)
		snprintf(buf, len, "%.10g..2^64-1", k->min);
	else
		snprintf(buf, len, "%.0f..%.0f%s", k->min, k->max,
			 strcmp(k->type, "POW2") ? "" : " (power of 2)");
}

/* The values a key of a name type takes, offered as suggestions. */
static void suggest_values(struct suggest *sg, const struct hvtlb_sim_key *k)
{
	const char *v;

	for (size_t i = 0; (v = hvtlb_sim_key_value(k, i)); i++)
		suggest_add(sg, v);
}

static void report_set_error(struct scenario *sc,
			     const struct scenario_setting *bad, int rc)
{
	const struct hvtlb_sim_key *k = hvtlb_sim_key_find(bad->key);
	char acc[256], hint[SUGGEST_MAX + 32];
	struct suggest sg;
	size_t ci;

	switch (rc) {
	case -ENOENT:
		suggest_init(&sg, bad->key);
		suggest_add_keys(&sg);
		scenario_error_at(
			sc, bad, "unknown key '%s'%s; 'hvtlb keys' lists them",
			bad->key, suggest_hint(&sg, hint, sizeof(hint)));
		break;
	case -ERANGE:
		if (k) {
			sim_key_accepts(k, acc, sizeof(acc));
			scenario_error_at(sc, bad,
					  "'%s' for '%s' is out of range: "
					  "%s%s%s",
					  bad->value, bad->key, acc,
					  *k->unit ? " " : "", k->unit);
		} else if (!sim_cost_index(bad->key, &ci)) {
			scenario_error_at(sc, bad,
					  "'%s' for '%s' is out of range: a "
					  "finite number >= 0 %s",
					  bad->value, bad->key,
					  hvtlb_sim_cost_unit(ci));
		} else {
			scenario_error_at(sc, bad,
					  "impossible value '%s' for '%s'",
					  bad->value, bad->key);
		}
		break;
	case -EINVAL:
		if (k && hvtlb_sim_key_value(k, 0)) {
			suggest_init(&sg, bad->value);
			suggest_values(&sg, k);
			sim_key_accepts(k, acc, sizeof(acc));
			scenario_error_at(sc, bad,
					  "bad value '%s' for '%s'%s; it takes "
					  "%s",
					  bad->value, bad->key,
					  suggest_hint(&sg, hint, sizeof(hint)),
					  acc);
		} else if (k) {
			sim_key_accepts(k, acc, sizeof(acc));
			scenario_error_at(
				sc, bad, "bad value '%s' for '%s': want %s%s%s",
				bad->value, bad->key, acc, *k->unit ? " " : "",
				k->unit);
		} else {
			scenario_error_at(sc, bad, "bad value '%s' for '%s'",
					  bad->value, bad->key);
		}
		break;
	default:
		scenario_error_at(sc, bad, "cannot set '%s': %s", bad->key,
				  strerror(-rc));
		break;
	}
}

/* An error about the `compare` list: at its line, or at its --set. */
static void report_compare_error(struct scenario *sc, const char *name, int rc)
{
	const struct scenario_setting *at = &sc->compare_at;
	char hint[SUGGEST_MAX + 32] = "";
	struct suggest sg;

	if (rc != -ERANGE) {
		suggest_init(&sg, name);
		suggest_add_strategies(&sg);
		suggest_hint(&sg, hint, sizeof(hint));
	}
	if (at->line)
		snprintf(sc->err, sizeof(sc->err),
			 "%s:%u: %s strategy '%s' in compare%s", at->file,
			 at->line, rc == -ERANGE ? "impossible" : "unknown",
			 name, hint);
	else
		snprintf(sc->err, sizeof(sc->err),
			 "%s: %s strategy '%s' in compare%s",
			 at->file ? at->file : "compare",
			 rc == -ERANGE ? "impossible" : "unknown", name, hint);
}

/* Where @p key was set, or NULL at its default. */
static bool given(const struct sim_batch *b, const char *key)
{
	return scenario_find(&b->sc, key) != NULL;
}

/* workload.kind = trace takes the loaded steps (trace-in.c), and the
 * trace's threads and largest flush unless the scenario says otherwise;
 * with no scenario file the VM is the recorded one. */
static int apply_script(struct sim_batch *b, struct hvtlb_sim_config *cfg)
{
	if (cfg->workload != HVTLB_SIM_WORKLOAD_TRACE) {
		if (!b->sc.trace_path)
			return 0;
		scenario_error_at(&b->sc, &b->sc.trace_at,
				  "workload.trace needs workload.kind = trace");
		return -EINVAL;
	}
	if (!b->script) {
		scenario_error_at(&b->sc,
				  scenario_find(&b->sc, "workload.kind"),
				  "workload.kind = trace needs a trace: "
				  "workload.trace = FILE or --trace-in FILE "
				  "(hvtlb sim only)");
		return -EINVAL;
	}
	cfg->wl_script = b->script;
	if (!given(b, "workload.threads"))
		cfg->wl_threads = b->script->nthreads;
	if (!given(b, "workload.pages"))
		cfg->wl_pages = b->script_pages;
	if (!given(b, "workload.processes") && b->script_processes)
		cfg->wl_processes = b->script_processes;
	if (b->script_machine && b->script_cpus) {
		if (!given(b, "vm.vcpus"))
			cfg->vcpus = b->script_cpus;
		if (!given(b, "machine.pcpus"))
			cfg->pcpus = b->script_cpus;
	}
	return 0;
}

/*
 * A config hvtlb_sim_config_check() refused: the key, its value and, for
 * a gate, why; at the key's line when the scenario set it.
 */
static void report_impossible(struct sim_batch *b,
			      const struct hvtlb_sim_config *cfg,
			      const char *bad_key, const char *why)
{
	const struct scenario_setting *bad =
		bad_key ? scenario_find(&b->sc, bad_key) : NULL;
	char val[128];

	if (bad) {
		scenario_error_at(&b->sc, bad,
				  "impossible machine: '%s = %s'%s%s", bad->key,
				  bad->value, why ? ": " : "", why ? why : "");
	} else if (why &&
		   !hvtlb_sim_config_get(cfg, bad_key, val, sizeof(val))) {
		snprintf(b->sc.err, sizeof(b->sc.err),
			 "%s: impossible machine: '%s = %s': %s",
			 b->sc.path ? b->sc.path : "scenario", bad_key, val,
			 why);
	} else {
		snprintf(b->sc.err, sizeof(b->sc.err),
			 "%s: impossible machine: '%s' (at its default)",
			 b->sc.path ? b->sc.path : "scenario",
			 bad_key ? bad_key : "?");
	}
}

static int configure_one(struct sim_batch *b, size_t i,
			 unsigned default_threads)
{
	struct hvtlb_sim_config *cfg = &b->cfg[i];
	struct apply_ctx ctx = { .cfg = cfg, .skip_strategy = 0 };
	const struct scenario_setting *bad = NULL;
	const char *bad_key = NULL, *why = NULL;
	char threads[16];
	int rc;

	hvtlb_sim_config_init(cfg);
	snprintf(threads, sizeof(threads), "%u", default_threads);
	rc = hvtlb_sim_config_set(cfg, "threads", threads);
	if (rc)
		return rc;
	if (b->strategy[i]) {
		/* compare's strategy, in place of the scenario's */
		rc = hvtlb_sim_config_set(cfg, "strategy", b->strategy[i]);
		if (rc) {
			report_compare_error(&b->sc, b->strategy[i], rc);
			return rc;
		}
		ctx.skip_strategy = 1;
	}
	rc = scenario_apply(&b->sc, apply_one, &ctx, &bad);
	if (rc) {
		report_set_error(&b->sc, bad, rc);
		return rc;
	}
	rc = apply_script(b, cfg);
	if (rc)
		return rc;
	rc = hvtlb_sim_config_check(cfg, &bad_key, &why);
	if (rc)
		report_impossible(b, cfg, bad_key, why);
	return rc;
}

/* Whether setting @p st is a line of the scenario file itself. */
static bool from_file(const struct scenario *sc,
		      const struct scenario_setting *st)
{
	return st >= sc->file.v && st < sc->file.v + sc->file.n;
}

/* Whether the compare list is a line of the scenario file itself. */
static bool compare_from_file(const struct scenario *sc)
{
	return sc->compare_at.line && sc->compare_at.file && sc->path &&
	       !strcmp(sc->compare_at.file, sc->path);
}

/*
 * `strategy` against `compare` (docs/cli.md): the command line beats the
 * file; given in the same place (both in the file, or both on the command
 * line), compare wins and b->warning[0] says that strategy is ignored. Sets
 * *use_compare.
 */
static void resolve_strategy(struct sim_batch *b, bool *use_compare)
{
	struct scenario *sc = &b->sc;
	const struct scenario_setting *st = scenario_find(sc, "strategy");
	bool st_file, cmp_file;

	*use_compare = sc->ncompare > 0;
	b->warning[0][0] = '\0';
	if (!st || !sc->ncompare)
		return;
	st_file = from_file(sc, st);
	cmp_file = compare_from_file(sc);
	if (st_file != cmp_file) {
		*use_compare = !cmp_file;
		return;
	}
	/* scenario_error_at() words the place; the error stays clear. */
	scenario_error_at(sc, st,
			  "'strategy = %s' is ignored: 'compare' runs each "
			  "strategy it lists",
			  st->value);
	snprintf(b->warning[0], sizeof(b->warning[0]), "%s", sc->err);
	sc->err[0] = '\0';
}

/* Where a setting came from, for a message: "file:line" or
 * "--set 'key=value'". */
static void setting_place(const struct scenario_setting *st, char *buf,
			  size_t len)
{
	if (st->line)
		snprintf(buf, len, "%s:%u", st->file, st->line);
	else
		snprintf(buf, len, "%s '%s=%s'", st->file, st->key, st->value);
}

/*
 * The library's HVTLB_SIM_WARN_NO_CATCH_UP for the first run that has it:
 * worth running on purpose, easy to get by accident, as lazy_skip is on
 * by default. Says so in b->warning[1], naming where both keys came
 * from.
 */
static void lazy_skip_check(struct sim_batch *b)
{
	struct scenario *sc = &b->sc;
	const struct scenario_setting *gen, *skip, *st;
	const struct hvtlb_sim_config *cfg = NULL;
	char gen_at[208] = "", at[200], from[480];
	const char *kind;
	size_t i;

	b->warning[1][0] = '\0';
	for (i = 0; i < b->nruns && !cfg; i++) {
		if (hvtlb_sim_config_warnings(&b->cfg[i]) &
		    HVTLB_SIM_WARN_NO_CATCH_UP)
			cfg = &b->cfg[i];
	}
	if (!cfg)
		return;
	kind = hvtlb_strategy_name(cfg->strategy.kind);
	gen = scenario_find(sc, "guest.tlb_gen");
	skip = scenario_find(sc, "strategy.lazy_skip");
	/* a compare run sets its strategy before every other key */
	st = b->strategy[i - 1] ? NULL : scenario_find(sc, "strategy");
	if (gen) {
		setting_place(gen, at, sizeof(at));
		snprintf(gen_at, sizeof(gen_at), " (%s)", at);
	}
	if (skip) {
		setting_place(skip, from, sizeof(from));
	} else if (st) {
		setting_place(st, at, sizeof(at));
		snprintf(from, sizeof(from), "the default of %s", at);
	} else {
		snprintf(from, sizeof(from), "the default of strategy '%s'",
			 kind);
	}
	snprintf(b->warning[1], sizeof(b->warning[1]),
		 "guest.tlb_gen = false%s with strategy.lazy_skip = true (%s): "
		 "%s skips lazy CPUs and the guest never catches them up, so "
		 "the oracle reports 'no-catch-up' violations; set "
		 "strategy.lazy_skip = false (Linux before 4.14 flushed lazy "
		 "CPUs) or guest.tlb_gen = true",
		 gen_at, from, kind);
}

/* A scenario file with no setting at all is a mistake, not a default. */
static bool empty_scenario(const struct scenario *sc)
{
	return !sc->file.n && !(sc->profile_name && sc->profile_line) &&
	       !compare_from_file(sc) && !sc->title;
}

int sim_batch_configure(struct sim_batch *b, unsigned default_threads)
{
	bool use_compare;
	int rc;

	if (!b->script && empty_scenario(&b->sc)) {
		snprintf(b->sc.err, sizeof(b->sc.err),
			 "%s: empty scenario: no 'key = value' line (see "
			 "scenarios/default.ini; 'hvtlb keys' lists the keys)",
			 b->sc.path ? b->sc.path : "scenario");
		return -EINVAL;
	}
	resolve_strategy(b, &use_compare);
	b->nruns = use_compare ? b->sc.ncompare : 1;
	for (size_t i = 0; i < b->nruns; i++) {
		b->strategy[i] = use_compare ? b->sc.compare[i] : NULL;
		rc = configure_one(b, i, default_threads);
		if (rc)
			return rc;
	}
	lazy_skip_check(b);
	return 0;
}

/* The whole of standard input, read once: every point of a sweep loads
 * the same scenario. */
static struct {
	char *buf;
	size_t len;
	bool read;
	int err;
} stdin_text;

static int read_stdin(void)
{
	FILE *m = open_memstream(&stdin_text.buf, &stdin_text.len);
	char chunk[4096];
	size_t n;

	stdin_text.read = true;
	if (!m)
		return stdin_text.err = -ENOMEM;
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		fwrite(chunk, 1, n, m);
	if (ferror(stdin))
		stdin_text.err = -EIO;
	if (fclose(m) && !stdin_text.err)
		stdin_text.err = -ENOMEM;
	return stdin_text.err;
}

int sim_scenario_load(struct scenario *sc, const char *path)
{
	FILE *f;
	int rc;

	if (strcmp(path, "-"))
		return scenario_load(sc, path);
	if (!stdin_text.read)
		read_stdin();
	if (stdin_text.err) {
		snprintf(sc->err, sizeof(sc->err), "%s: cannot read: %s",
			 SIM_STDIN_NAME, strerror(-stdin_text.err));
		return stdin_text.err;
	}
	f = stdin_text.len ? fmemopen(stdin_text.buf, stdin_text.len, "r")
			   : fopen("/dev/null", "r");
	if (!f) {
		snprintf(sc->err, sizeof(sc->err), "%s: %s", SIM_STDIN_NAME,
			 strerror(errno));
		return -errno;
	}
	rc = scenario_load_stream(sc, f, SIM_STDIN_NAME);
	fclose(f);
	return rc;
}

const char *sim_run_strerror(int rc)
{
	if (rc == -ETIME)
		return "virtual time limit (engine.max_virtual_s) reached";
	if (rc == -ENOSPC)
		return "a process needed more mappings than one may hold "
		       "(vm.max_map_count or the user address space; lazy "
		       "strategy: freed ranges still waiting for their flush)";
	return strerror(-rc);
}

int sim_batch_run_one_report(struct sim_batch *b, size_t i)
{
	snprintf(b->sc.err, sizeof(b->sc.err), "%s: run %zu (%s) failed: %s",
		 b->sc.path ? b->sc.path : "scenario", i + 1,
		 b->strategy[i] ? b->strategy[i] : "as configured",
		 sim_run_strerror(b->run_rc[i]));
	return b->run_rc[i];
}

int sim_batch_run_one(struct sim_batch *b, size_t i, bool report)
{
	b->run_rc[i] = hvtlb_sim_run(&b->cfg[i], &b->res[i]);
	if (b->run_rc[i]) {
		b->res[i] = NULL;
		if (report)
			sim_batch_run_one_report(b, i);
	}
	return b->run_rc[i];
}

/* The runs of a batch are independent simulations: workers take them in
 * index order from a shared counter. */
struct batch_pool {
	struct sim_batch *b;
	atomic_size_t next;
};

static void *batch_worker(void *arg)
{
	struct batch_pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->b->nruns) {
		sim_batch_run_one(p->b, i, false);
		progress_add(1);
	}
	return NULL;
}

int sim_batch_run(struct sim_batch *b)
{
	struct batch_pool pool = { .b = b };
	pthread_t tid[SCENARIO_COMPARE_MAX];
	size_t workers = b->nruns, started = 0;

	/* As many runs at once as the engine may use host threads (the
	 * scenario's "threads", --threads, or the host's cores). */
	if (b->nruns && workers > b->cfg[0].threads)
		workers = b->cfg[0].threads; /* validated: >= 1 */
	atomic_init(&pool.next, 0);
	for (; workers > 1 && started < workers - 1; started++)
		if (pthread_create(&tid[started], NULL, batch_worker, &pool))
			break;
	batch_worker(&pool); /* this thread works too */
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);

	/* Report the first failure in run order, whichever finished first. */
	for (size_t i = 0; i < b->nruns; i++)
		if (b->run_rc[i])
			return sim_batch_run_one_report(b, i);
	return 0;
}
