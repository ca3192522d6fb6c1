/* Detection outputs (TFLite_Detection_PostProcess: boxes, classes, scores, count) read from a
 * model's outputs, and boxes matched by IoU between two runs. Used by `run` and `diff`. The
 * matching needs nothing but this header (tests compile detect_match.c on its own). */
#ifndef AP_DETECT_H
#define AP_DETECT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct det_box {
  int cls;
  float score;
  float ymin, xmin, ymax, xmax; /* as the model gives them (normalised for the SSD) */
} det_box;

/* Intersection over union of two boxes; boxes with no area give 0 (never NaN). */
double det_iou(const det_box *a, const det_box *b);

/* How two lists of detections agree: every `want` box is matched to at most one `got` box of
 * the same class, greedily by decreasing IoU (ties to the lower want index, then the lower got
 * index), pairs with IoU >= min_iou only. missed: want boxes left unmatched; extra: got boxes
 * left unmatched; mean_iou over the matched pairs (1 when both lists are empty, 0 when nothing
 * matched otherwise). */
typedef struct det_match {
  size_t matched, missed, extra;
  double mean_iou;
} det_match;
/* Fails (false) only when n_want * n_got overflows or memory runs out. */
bool det_match_boxes(const det_box *want, size_t n_want, const det_box *got, size_t n_got,
                     double min_iou, det_match *out);

#ifdef AP_DETECT_WITH_MODEL
#include <arenaplan/arenaplan.h>

/* Which outputs of subgraph 0 the post-processing op writes: indices into the interpreter's
 * outputs, or found false. */
typedef struct det_outputs {
  bool found;
  size_t boxes, classes, scores, count;
} det_outputs;
det_outputs det_find_outputs(const ap_model *m);

/* The detections of the last invoke with score >= threshold, in the op's order (by score),
 * at most max; *total gets the count the op reported. Returns how many were written. */
size_t det_read(const ap_interpreter *it, const det_outputs *d, double threshold, det_box *out,
                size_t max, size_t *total);
#endif

#endif
