// SPDX-License-Identifier: MIT
#include "commit.h"
#include "version.h"

#ifndef HVTLB_VERSION
#define HVTLB_VERSION "unknown"
#endif

const char *tool_version(void)
{
	return HVTLB_VERSION;
}

const char *tool_commit(void)
{
	return HVTLB_COMMIT;
}
