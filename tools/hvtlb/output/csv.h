/* SPDX-License-Identifier: MIT */
/*
 * CSV as RFC 4180 describes it: fields separated by commas, a field that
 * holds a comma, a double quote, CR or LF enclosed in double quotes with
 * each double quote doubled, the same number of fields in every record,
 * a header record first. Records end in LF rather than CRLF, as Unix
 * tools expect (every CSV reader takes both).
 */
#ifndef HVTLB_TOOL_CSV_H
#define HVTLB_TOOL_CSV_H

#include <stdio.h>

/** Writes @p s as one field (quoted when it must be); NULL as empty. */
void csv_field(FILE *f, const char *s);

#endif
