// SPDX-License-Identifier: MIT
/* A recorded trace as the workload of `hvtlb sim` (trace-in.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HVTLB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "scenario-find.h"
#include "trace-dat.h"
#include "trace-in.h"
#include "trace-workload.h"

#ifdef HVTLB_HAVE_ZLIB
typedef gzFile trace_file;
#define tf_open(p) gzopen(p, "rb")
#define tf_read(f, b, n) gzread(f, b, (unsigned)(n))
#define tf_close(f) gzclose(f)
#else
typedef FILE *trace_file;
#define tf_open(p) fopen(p, "rb")
#define tf_read(f, b, n) ((int)fread(b, 1, n, f) ?: (ferror(f) ? -1 : 0))
#define tf_close(f) fclose(f)
#endif

int trace_file_read(const char *path, char **out, size_t *len)
{
	trace_file f = tf_open(path);
	size_t cap = 1 << 16, n = 0;
	char *buf, *nb;
	int got = 0, err = errno;

	if (!f)
		return err ? -err : -ENOMEM;
	buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap >= TRACE_FILE_MAX_BYTES) {
				got = -EFBIG;
				break;
			}
			nb = realloc(buf, cap *= 2);
			if (!nb) {
				got = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = tf_read(f, buf + n, cap - n);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	tf_close(f);
	if (!buf || got < 0) {
		free(buf);
		return !buf ? -ENOMEM : got == -1 ? -EIO : got;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Whether @p path starts like a trace.dat (the text is read otherwise,
 * so a .dat is not read whole only to be read again by libtracecmd). */
static bool file_is_dat(const char *path)
{
	char head[TRACE_DAT_MAGIC_LEN];
	FILE *f = fopen(path, "rb");
	bool dat = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		   trace_dat_is(head, sizeof(head));

	if (f)
		fclose(f);
	return dat;
}

int trace_file_load(const char *path, char **out, size_t *len, char *err,
		    size_t errlen)
{
	int rc;

	if (!file_is_dat(path)) {
		rc = trace_file_read(path, out, len);
		if (rc)
			snprintf(err, errlen, "%s",
				 rc == -EIO || rc == -EFBIG
					 ? "cannot read it (or larger than "
					   "1 GiB)"
					 : strerror(-rc));
		return rc;
	}
	rc = trace_dat_text(path, TRACE_FILE_MAX_BYTES, out, len, err, errlen);
	if (rc && rc != -EINVAL && rc != -ENOTSUP && rc != -EFBIG)
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

int sim_load_with_trace(struct sim_batch *b, const char *path,
			const char *trace_in)
{
	int rc = path ? sim_scenario_load(&b->sc, path) : 0;

	if (rc || !trace_in)
		return rc;
	if (!path) {
		free(b->sc.path);
		b->sc.path = strdup(trace_in);
		if (!b->sc.path)
			return -ENOMEM;
		b->script_machine = true;
	}
	rc = scenario_add_option(&b->sc, "--trace-in", "workload.kind",
				 "trace");
	return rc ? rc : scenario_set_trace(&b->sc, "--trace-in", 0, trace_in);
}

static void script_free(void *p)
{
	trace_workload_free(p);
	free(p);
}

/* What is replayed, as the title a scenario file would give. */
static int set_title(struct sim_batch *b, const char *path,
		     const struct trace_workload *w)
{
	const char *base = strrchr(path, '/');
	char t[512];

	snprintf(t, sizeof(t),
		 "replay of %s: %u threads, %llu flushes (munmap %llu, madvise "
		 "%llu, mprotect %llu, other %llu), recorded on %u CPUs",
		 base ? base + 1 : path, w->script.nthreads,
		 (unsigned long long)w->flushes,
		 (unsigned long long)w->by_kind[HVTLB_SIM_STEP_MUNMAP],
		 (unsigned long long)w->by_kind[HVTLB_SIM_STEP_MADVISE],
		 (unsigned long long)w->by_kind[HVTLB_SIM_STEP_MPROTECT],
		 (unsigned long long)w->by_kind[HVTLB_SIM_STEP_FLUSH], w->cpus);
	b->sc.title = strdup(t);
	return b->sc.title ? 0 : -ENOMEM;
}

static int sim_trace_load(struct sim_batch *b)
{
	const char *path = b->sc.trace_path;
	struct trace_workload *w;
	char why[256], *buf = NULL;
	size_t len = 0;
	int rc;

	if (!path || b->script)
		return 0;
	rc = trace_file_load(path, &buf, &len, why, sizeof(why));
	if (rc) {
		scenario_error_at(&b->sc, &b->sc.trace_at,
				  "cannot read trace %s: %s", path, why);
		return rc;
	}
	w = calloc(1, sizeof(*w));
	rc = w ? trace_workload_read(w, buf, len) : -ENOMEM;
	free(buf);
	if (rc) {
		snprintf(b->sc.err, sizeof(b->sc.err), "%s: %s", path,
			 rc == -ENOMEM ? "out of memory" : w->err);
		if (w)
			script_free(w);
		return rc;
	}
	return sim_batch_take_trace(b, path, w);
}

int sim_batch_take_trace(struct sim_batch *b, const char *path,
			 struct trace_workload *w)
{
	int rc = !b->sc.title && set_title(b, path, w) ? -ENOMEM : 0;

	b->script = &w->script;
	b->script_pages = w->pages;
	b->script_cpus = w->cpus;
	b->script_processes = w->processes;
	b->script_owner = w;
	b->script_free = script_free;
	return rc;
}

int sim_configure_with_trace(struct sim_batch *b, unsigned default_threads)
{
	int rc = sim_trace_load(b);

	return rc ? rc : sim_batch_configure(b, default_threads);
}
