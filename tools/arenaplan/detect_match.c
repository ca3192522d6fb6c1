/* IoU matching of two detection lists (see detect.h). */
#include "detect.h"

#include <stdint.h>
#include <stdlib.h>

double det_iou(const det_box *a, const det_box *b) {
  double ay0 = a->ymin < a->ymax ? a->ymin : a->ymax, ay1 = a->ymin < a->ymax ? a->ymax : a->ymin;
  double ax0 = a->xmin < a->xmax ? a->xmin : a->xmax, ax1 = a->xmin < a->xmax ? a->xmax : a->xmin;
  double by0 = b->ymin < b->ymax ? b->ymin : b->ymax, by1 = b->ymin < b->ymax ? b->ymax : b->ymin;
  double bx0 = b->xmin < b->xmax ? b->xmin : b->xmax, bx1 = b->xmin < b->xmax ? b->xmax : b->xmin;
  double ih = (ay1 < by1 ? ay1 : by1) - (ay0 > by0 ? ay0 : by0);
  double iw = (ax1 < bx1 ? ax1 : bx1) - (ax0 > bx0 ? ax0 : bx0);
  if (!(ih > 0) || !(iw > 0)) return 0;
  double inter = ih * iw;
  double uni = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter;
  return uni > 0 ? inter / uni : 0;
}

bool det_match_boxes(const det_box *want, size_t n_want, const det_box *got, size_t n_got,
                     double min_iou, det_match *out) {
  out->matched = 0;
  out->missed = n_want;
  out->extra = n_got;
  out->mean_iou = n_want == 0 && n_got == 0 ? 1 : 0;
  if (!n_want || !n_got) return true;
  if (n_want > SIZE_MAX / n_got || n_want + n_got < n_want) return false;
  bool *used = calloc(n_want + n_got, sizeof *used);
  if (!used) return false;
  bool *used_got = used + n_want;
  double sum = 0;
  /* Greedy: take the best remaining pair each round. n is small (tens of boxes): the
   * quadratic scan per round keeps the tie order explicit instead of sorting pairs. */
  for (;;) {
    double best = -1;
    size_t bi = 0, bj = 0;
    for (size_t i = 0; i < n_want; i++) {
      if (used[i]) continue;
      for (size_t j = 0; j < n_got; j++) {
        if (used_got[j] || got[j].cls != want[i].cls) continue;
        double v = det_iou(&want[i], &got[j]);
        if (v >= min_iou && v > best) {
          best = v;
          bi = i;
          bj = j;
        }
      }
    }
    if (best < 0) break;
    used[bi] = used_got[bj] = true;
    out->matched++;
    sum += best;
  }
  free(used);
  out->missed = n_want - out->matched;
  out->extra = n_got - out->matched;
  out->mean_iou = out->matched ? sum / (double)out->matched : 0;
  return true;
}
