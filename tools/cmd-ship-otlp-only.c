/* SPDX-License-Identifier: MIT */
/* cmd-ship-otlp-only.c - `weft ship` while this branch has only its
 * OTLP half: cmd-ship.c (ClickHouse) replaces this file and calls
 * cmd_ship_otlp() when --otlp is given. */
#include "otlp.h"
#include "weft-tools.h"

int cmd_ship(int argc, char **argv)
{
	return cmd_ship_otlp(argc, argv);
}
