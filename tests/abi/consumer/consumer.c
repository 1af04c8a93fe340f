// SPDX-License-Identifier: MIT
#include <hvtlb/hypercall.h>

int main(void)
{
	return hvtlb_status_name(HVTLB_STATUS_SUCCESS) ? 0 : 1;
}
