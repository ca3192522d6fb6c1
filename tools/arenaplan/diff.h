/* `arenaplan diff`'s state, shared by the comparison (cmd_diff.c) and its output
 * (diff_print.c). */
#ifndef AP_DIFF_H
#define AP_DIFF_H

#include "cli.h"
#define AP_DETECT_WITH_MODEL
#include "detect.h"

#define PAIR_IOU 0.5 /* a detection pair needs the same class and at least this IoU */
#define MAX_SEEDS 1000
#define DET_MAX 256

typedef struct diff_args {
  const char *path[2];
  uint64_t seeds;
  bool json, has_max_error, has_min_iou;
  double max_error, min_iou, score_threshold;
} diff_args;

/* What is accumulated for one output over every seed. */
typedef struct out_stats {
  size_t elements;
  double max_abs, sum_abs;
  size_t top1_agree, top1_total; /* top1_total 0: not classifier-shaped */
  bool detection;
} out_stats;

typedef struct diff_state {
  ap_model *m[2];
  ap_interpreter *it[2];
  det_outputs det[2];
  size_t inputs, outputs;
  double *lo, *hi; /* the real range of each input */
  out_stats *st;
  det_box box[2][DET_MAX];
  size_t boxes[2];
  det_match total; /* summed over seeds; mean_iou holds the IoU sum until the end */
  bool nonfinite;  /* a NaN or infinity in either output */
} diff_state;

/* True for an int8, uint8 or int16 tensor with a usable scale. */
bool diff_quantized(const ap_tensor *t);
/* Mean IoU of the matched pairs over every seed (1 when neither model found a box). */
double diff_mean_iou(const diff_state *s);
/* Whether every limit given holds; with print, the failed ones as lines of text. */
bool diff_verdict(const diff_args *a, const diff_state *s, bool print);
void diff_print_json(const diff_args *a, const diff_state *s, bool ok);
void diff_print_human(const diff_args *a, const diff_state *s);

#endif
