// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <string.h>

#include "csv.h"

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* integer from the field's type; a type other than uint64_t or double has
 * no association and does not build */
/* clang-format off */
#define CSV_INTEGER_(field)                                                    \
	_Generic(((struct hvtlb_sim_results *)0)->field,                       \
		 uint64_t: true,                                               \
		 double: false)
/* clang-format on */
#define CSV_ROW_(name, field, in_sweep)                                        \
	{ #name, offsetof(struct hvtlb_sim_results, field),                    \
	  CSV_INTEGER_(field), in_sweep },
const struct csv_column csv_columns[CSV_NCOLUMNS] = { CSV_COLUMN_MAP(
	CSV_ROW_) };
#undef CSV_ROW_
#undef CSV_INTEGER_

const struct csv_column *csv_sweep_column(size_t i)
{
	for (size_t k = 0; k < CSV_NCOLUMNS; k++)
		if (csv_columns[k].sweep && !i--)
			return &csv_columns[k];
	return NULL;
}

void csv_column_format(const struct csv_column *c,
		       const struct hvtlb_sim_results *r, char *buf, size_t len)
{
	const char *at = (const char *)r + c->offset;

	if (c->integer) {
		uint64_t v;

		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%llu", (unsigned long long)v);
	} else {
		double v;

		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%.9g", v);
	}
}
