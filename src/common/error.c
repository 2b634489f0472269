/* SPDX-License-Identifier: MIT */
/* error.c - messages for weft's error codes, from the WEFT_ERRNO_MAP
 * table of weft.h. */
#include <string.h>

#include "weft/weft.h"

WEFT_API const char *weft_strerror(int err)
{
	switch (err) {
#define WEFT__ERR_CASE(name, val, msg)                                         \
	case val:                                                              \
		return msg;
		WEFT_ERRNO_MAP(WEFT__ERR_CASE)
#undef WEFT__ERR_CASE
	case 0:
		return "success";
	}
	if (err < 0 && err > -4000)
		return strerror(-err);
	return "unknown error";
}

WEFT_API const char *weft_version(void)
{
#ifdef WEFT_VERSION_STRING
	return WEFT_VERSION_STRING;
#else
	return "unknown (built without meson)";
#endif
}
