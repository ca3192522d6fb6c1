/* The memory map draws a streamed segment's rings as rings. person_detect_int8 in place and
 * streamed (`arenaplan report --inplace --stream`) has 9 segments and 15 rings (the text
 * report's list); its first, ops 0-3, holds t34 [1,48,48,8] as 3 rows of 48 (3 x 48 x 8 =
 * 1,152 B instead of 48 x 48 x 8 = 18,432 B) and t51 [1,48,48,8] as 1 row (384 B): a
 * depthwise 3x3 needs 3 input rows at once, the 1x1 convolution after it one. Each ring is
 * hatched, and its data-ring (the tooltip's last line) and <title> say so. */
#include "arenaplan/arenaplan.h"
#include "arenaplan/report.h"
#include "test.h"

#include <stdlib.h>

static char *render(ap_status (*w)(const ap_report *, FILE *), const ap_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(f != NULL);
  if (!f) return NULL;
  CHECK_EQ(w(r, f), AP_OK);
  fclose(f);
  return buf;
}

static size_t count(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

static char *html_of(const ap_model *m, bool stream) {
  ap_report *r = NULL;
  CHECK_EQ(ap_report_create(m, &(ap_report_options){.inplace = true, .stream = stream}, NULL, &r),
           AP_OK);
  char *html = r ? render(ap_report_write_html, r) : NULL;
  ap_report_destroy(r);
  return html;
}

int main(void) {
  ap_test_require_shared();
  char path[1024];
  ap_model *m = NULL;
  CHECK_EQ(
      ap_model_open(ap_test_path(path, sizeof path, "models/person_detect_int8.tflite"), NULL, &m),
      AP_OK);
  if (!m) return ap_test_done();
  char *html = html_of(m, true);
  CHECK_EQ(count(html, "data-ring=\"ring: "), 15);
  /* 15 rectangles and the legend's swatch. */
  CHECK_EQ(count(html, "fill=\"url(#ring-hatch)\""), 16);
  CHECK_CONTAINS(html, "<pattern id=\"ring-hatch\"");
  CHECK_CONTAINS(html, ">ring (rows)</text>");
  CHECK_CONTAINS(html, "fill=\"url(#ring-hatch)\" data-id=\"34\" data-kind=\"intermediate\" "
                       "data-ring=\"ring: 3 rows of 48 (1,152 B) in place of the whole map of "
                       "18,432 B\" data-name=\"MobilenetV1/MobilenetV1/Conv2d_0/Relu6\" "
                       "data-shape=\"[1,48,48,8]\" data-bytes=\"1152\"");
  CHECK_CONTAINS(html, "data-ring=\"ring: 1 row of 48 (384 B) in place of the whole map of "
                       "18,432 B\"");
  CHECK_CONTAINS(html, "data-ring=\"ring: 3 rows of 48 (2,304 B) in place of the whole map of "
                       "36,864 B\"");
  CHECK_CONTAINS(html, " 1152 bytes at ");
  CHECK_CONTAINS(html, "; ring: 3 rows of 48 (1,152 B) in place of the whole map of 18,432 B"
                       "</title>");
  /* The tooltip shows the ring's line. */
  CHECK_CONTAINS(html, "(d.ring?'\\n'+d.ring:'')");
  CHECK_CONTAINS(html, "Hatched: a streamed segment's ring");
  free(html);
  /* Unstreamed: no ring anywhere. */
  html = html_of(m, false);
  CHECK(html != NULL);
  CHECK_EQ(count(html, "data-ring="), 0);
  CHECK_EQ(count(html, "ring-hatch"), 0);
  CHECK_EQ(count(html, "Hatched"), 0);
  free(html);
  ap_model_destroy(m);
  return ap_test_done();
}
