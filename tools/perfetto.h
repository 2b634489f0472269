/* SPDX-License-Identifier: MIT */
/* perfetto.h - the model as Perfetto's native protobuf trace
 * (perfetto.c): `weft export --format perfetto`. */
#ifndef WEFT_PERFETTO_H
#define WEFT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "weft/model.h"

/* Writes the Trace to f: the threads i with only[i] (NULL: all), OS
 * threads always.  0, or -12 (ENOMEM) or -5 (EIO). */
int perfetto_write(const struct weft_model *m, FILE *f, const uint8_t *only);

#endif
