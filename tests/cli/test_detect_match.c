/* IoU matching of detection lists (tools/arenaplan/detect_match.c, compiled in): hand-made
 * pairs with no boxes, all boxes matched, a box missed and one extra, class mismatches,
 * degenerate boxes, and ties broken by index. */
#include "../../tools/arenaplan/detect_match.c"
#include "test.h"

#include <math.h>

static det_box box(int cls, float y0, float x0, float y1, float x1) {
  det_box b = {cls, 0.9f, y0, x0, y1, x1};
  return b;
}

static bool near(double a, double b) {
  return fabs(a - b) < 1e-12;
}

static void match(const det_box *w, size_t nw, const det_box *g, size_t ng, size_t matched,
                  size_t missed, size_t extra, double iou) {
  det_match m;
  CHECK(det_match_boxes(w, nw, g, ng, 0.5, &m));
  CHECK_EQ(m.matched, matched);
  CHECK_EQ(m.missed, missed);
  CHECK_EQ(m.extra, extra);
  CHECK_MSG(near(m.mean_iou, iou), "mean IoU %.17g, want %.17g", m.mean_iou, iou);
}

int main(void) {
  det_box unit = box(1, 0, 0, 1, 1);
  det_box half = box(1, 0, 0, 1, 0.5f);         /* inside unit: IoU 0.5 */
  det_box shifted = box(1, 0, 0.25f, 1, 1.25f); /* overlap 0.75 of 1.25: IoU 0.6 */
  det_box far = box(1, 2, 2, 3, 3);
  CHECK(near(det_iou(&unit, &unit), 1));
  CHECK(near(det_iou(&unit, &half), 0.5));
  CHECK(near(det_iou(&unit, &shifted), 0.6));
  CHECK(near(det_iou(&unit, &far), 0));
  /* Corners given the wrong way round are the same box; an empty box has IoU 0, not NaN. */
  det_box flipped = box(1, 1, 1, 0, 0), point = box(1, 0.5f, 0.5f, 0.5f, 0.5f);
  CHECK(near(det_iou(&unit, &flipped), 1));
  CHECK(near(det_iou(&point, &point), 0));
  det_box touching = box(1, 0, 1, 1, 2); /* shares an edge only */
  CHECK(near(det_iou(&unit, &touching), 0));

  /* No boxes on either side: nothing to miss, perfect agreement. */
  match(NULL, 0, NULL, 0, 0, 0, 0, 1);
  /* All of A's missing in B, or all of B extra. */
  det_box two[2] = {unit, far};
  match(two, 2, NULL, 0, 0, 2, 0, 0);
  match(NULL, 0, two, 2, 0, 0, 2, 0);
  /* All boxes matched, in another order. */
  det_box rev[2] = {far, unit};
  match(two, 2, rev, 2, 2, 0, 0, 1);
  /* IoU exactly at the pairing threshold counts; below it is a miss and an extra. */
  match(&unit, 1, &half, 1, 1, 0, 0, 0.5);
  det_box narrow = box(1, 0, 0, 1, 0.49f);
  match(&unit, 1, &narrow, 1, 0, 1, 1, 0);
  /* The same place with another class never matches. */
  det_box other = box(2, 0, 0, 1, 1);
  match(&unit, 1, &other, 1, 0, 1, 1, 0);
  /* Greedy by IoU: B's exact copy of unit goes to unit, not to `shifted`, which then pairs
   * with nothing better than IoU 0.6 against its own copy. */
  det_box a3[2] = {shifted, unit}, b3[2] = {unit, shifted};
  match(a3, 2, b3, 2, 2, 0, 0, 1);
  /* Ties: two identical boxes in A, one in B: the lower A index is matched, the other missed;
   * two identical in B, one in A: the lower B index is matched, the other extra. */
  det_box dup[2] = {unit, unit};
  det_match m;
  CHECK(det_match_boxes(dup, 2, &unit, 1, 0.5, &m));
  CHECK(m.matched == 1 && m.missed == 1 && m.extra == 0 && near(m.mean_iou, 1));
  CHECK(det_match_boxes(&unit, 1, dup, 2, 0.5, &m));
  CHECK(m.matched == 1 && m.missed == 0 && m.extra == 1 && near(m.mean_iou, 1));
  /* A tie between two candidate pairs of equal IoU: one to one all the same. */
  det_box left = box(1, 0, 0, 1, 1), right = box(1, 0, 0.5f, 1, 1.5f);
  det_box mid = box(1, 0, 0.25f, 1, 1.25f); /* IoU 0.6 with both */
  det_box a4[2] = {left, right}, b4[1] = {mid};
  CHECK(near(det_iou(&left, &mid), det_iou(&right, &mid)));
  CHECK(det_match_boxes(a4, 2, b4, 1, 0.5, &m));
  CHECK(m.matched == 1 && m.missed == 1 && m.extra == 0 && near(m.mean_iou, 0.6));
  /* Mean over matched pairs: 1 and 0.6. */
  det_box a5[2] = {unit, far}, b5[2] = {box(1, 2, 2.25f, 3, 3.25f), unit};
  match(a5, 2, b5, 2, 2, 0, 0, 0.8);
  return ap_test_done();
}
