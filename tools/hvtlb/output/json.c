// SPDX-License-Identifier: MIT
#include <inttypes.h>

#include "json.h"
#include "version.h"

void json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_hex64(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%016" PRIx64 "\"", v);
}

void json_index_array(FILE *f, const uint64_t *bits, uint32_t nbits)
{
	const char *sep = "";

	fputc('[', f);
	for (uint32_t i = 0; i < nbits; i++) {
		if ((bits[i / 64] >> (i % 64)) & 1) {
			fprintf(f, "%s%" PRIu32, sep, i);
			sep = ",";
		}
	}
	fputc(']', f);
}

void json_meta(FILE *f, int schema)
{
	fprintf(f, "\"schema\":%d,\"hvtlb\":{\"version\":", schema);
	json_string(f, tool_version());
	fputs(",\"commit\":", f);
	json_string(f, tool_commit());
	fputc('}', f);
}
