// SPDX-License-Identifier: MIT
/*
 * Fuzzes the ftrace text reader (src/replay) and the recorded side of
 * `hvtlb replay --check` with any bytes.
 *
 * Invariants:
 * - the reader ends (0) or fails with -EINVAL, an error whose line is
 *   one of the input's lines and whose byte is inside it;
 * - every record's spans lie inside the input, its CPU under the bound;
 * - the check agrees: it fails exactly when the reader does, and never
 *   pairs or drops more shootdowns than it started.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "replay-check.h"
#include "trace-text.h"

static int in(const char *b, size_t n, struct trace_span s)
{
	return !s.len || (s.p >= b && s.p + s.len <= b + n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	struct trace_reader r;
	struct trace_record rec;
	struct replay_check c;
	uint64_t lines = 1;
	int rc, crc;

	for (size_t i = 0; i < size; i++)
		lines += b[i] == '\n';
	trace_reader_init(&r, b, size);
	while ((rc = trace_reader_next(&r, &rec)) > 0) {
		FUZZ_CHECK(rec.cpu < TRACE_MAX_CPUS);
		FUZZ_CHECK(in(b, size, rec.comm));
		if (rec.event == TRACE_EV_SYS_ENTER)
			FUZZ_CHECK(rec.u.sys.nargs <= 6);
		if (rec.event == TRACE_EV_SCHED_SWITCH)
			FUZZ_CHECK(in(b, size, rec.u.sw.prev_comm) &&
				   in(b, size, rec.u.sw.next_comm));
	}
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc) {
		FUZZ_CHECK(r.err_line >= 1 && r.err_line <= lines);
		FUZZ_CHECK(r.err_byte <= size);
		FUZZ_CHECK(!strncmp(r.err, "line ", 5));
	}
	crc = replay_check_run(&c, b, size);
	FUZZ_CHECK(crc == rc || crc == -ENOMEM);
	if (!crc)
		FUZZ_CHECK(c.paired + c.unpaired <= c.shootdowns &&
			   c.nlatency == c.paired);
	replay_check_finish(&c);
	return 0;
}
