/* SPDX-License-Identifier: MIT */
/*
 * A self-contained SVG 1.1 line plot (no dependencies): used by
 * `hvtlb sweep --svg`. Nothing here allocates; the caller owns every array.
 */
#ifndef HVTLB_TOOL_SVG_H
#define HVTLB_TOOL_SVG_H

#include <stddef.h>
#include <stdio.h>

/** One plot: @nseries lines over the same @nx x positions. */
struct svg_plot {
	const char *title;  /**< text above the plot (escaped for XML) */
	const char *xlabel; /**< x axis label */
	const char *ylabel; /**< y axis label */
	size_t nx;
	const char *const *xnames; /**< @nx tick labels (categorical axis) */
	const double *xval; /**< @nx numbers, or NULL: categorical, evenly
			     *   spaced and labelled with @xnames */
	size_t nseries;
	const char *const *names; /**< @nseries legend entries */
	const double *y;	  /**< y[s * nx + i]; NaN: no point (skipped) */
};

/**
 * Writes @p p as an SVG document to @p f. Each series is one <polyline>
 * (class "series") whose points are its non-NaN values in x order, plus a
 * circle per point and a legend entry. Returns 0, -EINVAL for an empty
 * plot (nx or nseries 0) or -EIO when writing failed.
 */
int svg_plot_write(FILE *f, const struct svg_plot *p);

/** Writes @p s with &, <, >, " and ' escaped and control bytes replaced. */
void svg_escape(FILE *f, const char *s);

#endif
