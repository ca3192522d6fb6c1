/* The internal FlatBuffers builder: exact layout of a table and its vtable, vtable sharing,
 * vector alignment, and the sticky failures (2 GiB limit, backward links, bad fields). The
 * expected bytes follow the FlatBuffers binary format: a table starts with an soffset to its
 * vtable (table - vtable), a vtable is [vtable size, table size, field offsets by id]. */
#include "model/fb_builder.h"
#include "test.h"

static uint16_t u16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_table_layout(void) {
  fb_builder b;
  fb_init(&b, NULL);
  fb_begin_file(&b, "TFL3");
  fb_table t;
  fb_table_begin(&t);
  fb_table_scalar(&t, 0, 1, 0x7f);               /* a byte */
  fb_table_scalar(&t, 2, 8, 0x1122334455667788); /* a long: must land 8-byte aligned */
  fb_table_offset(&t, 3);
  size_t pos = fb_table_end(&b, &t);
  CHECK_EQ(b.status, AP_OK);
  /* Vtable at 8 (right after the 8-byte header): 4 + 2 * 4 ids = 12 bytes, ending at 20; the
   * table needs 8-byte alignment for the long, so it starts at 24. */
  CHECK_EQ(pos, 24);
  CHECK_EQ(u16(b.buf + 8), 12);        /* vtable size */
  CHECK_EQ(u32(b.buf + pos), pos - 8); /* soffset back to the vtable */
  /* Fields by size: the long at 8 (after the 4-byte soffset, aligned), the offset at 16, the
   * byte at 20; table size 21. */
  CHECK_EQ(u16(b.buf + 10), 21);
  CHECK_EQ(u16(b.buf + 12), 20); /* id 0 */
  CHECK_EQ(u16(b.buf + 14), 0);  /* id 1 absent */
  CHECK_EQ(u16(b.buf + 16), 8);  /* id 2 */
  CHECK_EQ(u16(b.buf + 18), 16); /* id 3 */
  CHECK_EQ(b.buf[pos + 20], 0x7f);
  CHECK_EQ(u32(b.buf + pos + 8), 0x55667788);
  CHECK_EQ(u32(b.buf + pos + 12), 0x11223344);
  CHECK_EQ(fb_field_pos(&t, 3), pos + 16);
  CHECK_EQ(fb_field_pos(&t, 1), 0);

  /* A string linked from field 3: the uoffset is relative to the field itself. */
  size_t s = fb_string(&b, "abc", 3);
  fb_table_link(&b, &t, 3, s);
  CHECK_EQ(s % 4, 0);
  CHECK_EQ(u32(b.buf + pos + 16), s - (pos + 16));
  CHECK_EQ(u32(b.buf + s), 3);
  CHECK(memcmp(b.buf + s + 4, "abc", 4) == 0); /* NUL included */

  /* A second table with the same fields shares the vtable: nothing is written before it but
   * alignment padding. */
  size_t before = b.len;
  fb_table t2;
  fb_table_begin(&t2);
  fb_table_offset(&t2, 3);
  fb_table_scalar(&t2, 2, 8, 1);
  fb_table_scalar(&t2, 0, 1, 2);
  size_t pos2 = fb_table_end(&b, &t2);
  CHECK_EQ(u32(b.buf + pos2), pos2 - 8);
  CHECK(pos2 - before < 8);
  CHECK_EQ(b.vt_count, 1);
  /* A table with no fields: vtable [4, 4]. */
  fb_table_begin(&t2);
  size_t pos3 = fb_table_end(&b, &t2);
  size_t vt3 = pos3 - u32(b.buf + pos3);
  CHECK(u16(b.buf + vt3) == 4 && u16(b.buf + vt3 + 2) == 4);
  CHECK_EQ(b.status, AP_OK);
  fb_release(&b);
}

static void test_vectors(void) {
  fb_builder b;
  fb_init(&b, NULL);
  fb_append(&b, NULL, 3);
  const int64_t v64[] = {-1, 2};
  size_t p = fb_vector(&b, v64, 2, 8, 8);
  CHECK_EQ((p + 4) % 8, 0);
  CHECK_EQ(u32(b.buf + p), 2);
  CHECK(memcmp(b.buf + p + 4, v64, 16) == 0);
  fb_append(&b, NULL, 1);
  const uint8_t bytes[] = {1, 2, 3};
  p = fb_vector(&b, bytes, 3, 1, 16);
  CHECK_EQ((p + 4) % 16, 0);
  CHECK_EQ(p % 4, 0);
  CHECK((uintptr_t)(b.buf + p + 4) % 16 == 0);
  p = fb_vector(&b, NULL, 0, 4, 4);
  CHECK_EQ(u32(b.buf + p), 0);
  CHECK_EQ(b.status, AP_OK);
  fb_release(&b);
}

static void test_failures(void) {
  fb_builder b;
  fb_init(&b, NULL);
  /* Beyond 2 GiB: refused before any allocation, and sticky. */
  CHECK_EQ(fb_append(&b, NULL, (size_t)INT32_MAX + 1), 0);
  CHECK_EQ(b.status, AP_ERR_OVERFLOW);
  CHECK_EQ(b.cap, 0);
  fb_append(&b, "x", 1);
  CHECK_EQ(b.len, 0);
  fb_release(&b);

  fb_init(&b, NULL);
  CHECK_EQ(fb_vector(&b, NULL, (size_t)UINT32_MAX + 1, 1, 4), 0);
  CHECK_EQ(b.status, AP_ERR_OVERFLOW);
  fb_release(&b);

  fb_init(&b, NULL);
  CHECK_EQ(fb_vector(&b, NULL, SIZE_MAX / 4 + 2, 8, 8), 0);
  CHECK_EQ(b.status, AP_ERR_OVERFLOW);
  fb_release(&b);

  /* A uoffset may only point forward. */
  fb_init(&b, NULL);
  fb_append(&b, NULL, 16);
  fb_link(&b, 8, 4);
  CHECK_EQ(b.status, AP_ERR_ARG);
  fb_release(&b);

  /* Duplicate ids, ids beyond the limit, odd sizes, too many fields: the table is refused. */
  fb_table t;
  int cases = 0;
  for (int k = 0; k < 4; k++) {
    fb_init(&b, NULL);
    fb_table_begin(&t);
    if (k == 0) {
      fb_table_scalar(&t, 1, 4, 0);
      fb_table_offset(&t, 1);
    } else if (k == 1) {
      fb_table_scalar(&t, FB_MAX_FIELD_ID + 1, 4, 0);
    } else if (k == 2) {
      fb_table_scalar(&t, 0, 3, 0);
    } else {
      for (unsigned i = 0; i <= FB_MAX_FIELDS; i++)
        fb_table_scalar(&t, i, 1, 0);
    }
    CHECK_EQ(fb_table_end(&b, &t), 0);
    CHECK_EQ(b.status, AP_ERR_ARG);
    cases++;
    fb_release(&b);
  }
  CHECK_EQ(cases, 4);
}

int main(void) {
  test_table_layout();
  test_vectors();
  test_failures();
  return ap_test_done();
}
