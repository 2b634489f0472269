/* SPDX-License-Identifier: MIT */
#ifndef WEFT_CAIRO_CANVAS_H
#define WEFT_CAIRO_CANVAS_H
#include <cairo.h>

#include "canvas.h"

struct weft_canvas weft_cairo_canvas(cairo_t *cr);
#endif
