/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets and the corpus replay driver. */
#ifndef HVTLB_FUZZ_H
#define HVTLB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant the target checks; abort() so libFuzzer and the replay
 * driver both report it with the input that broke it. */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			fuzz_fail(__FILE__, __LINE__, #cond);                  \
	} while (0)

void fuzz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

#endif
