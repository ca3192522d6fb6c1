/* Model patches keep everything they do not change: a metadata entry added to a model whose
 * buffers live after the FlatBuffer (Buffer.offset, shifted with the inserted block), one
 * replaced, and hostile arguments. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

static ap_model *build(bool external, uint8_t **bytes) {
  ap_writer *w;
  CHECK(ap_writer_create(&(ap_writer_options){.external_buffers = external}, &w) == AP_OK);
  uint32_t add, buf;
  CHECK(ap_writer_add_opcode(w, 0, 1, &add) == AP_OK);
  const float k[4] = {1.5f, -2.0f, 3.25f, 0.5f};
  CHECK(ap_writer_add_buffer(w, k, sizeof k, &buf) == AP_OK);
  CHECK(ap_writer_add_metadata_bytes(w, "note", "abc", 3, NULL) == AP_OK);
  const int32_t shape[] = {4};
  int32_t x, c, y;
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "x", .shape = shape, .rank = 1},
                             &x) == AP_OK);
  CHECK(ap_writer_add_tensor(
            w, 0, &(ap_writer_tensor){.name = "c", .shape = shape, .rank = 1, .buffer = buf}, &c) ==
        AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "y", .shape = shape, .rank = 1},
                             &y) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1) == AP_OK);
  const int32_t in[] = {x, c};
  CHECK(ap_writer_add_op(
            w, 0,
            &(ap_writer_op){
                .opcode = add, .inputs = in, .input_count = 2, .outputs = &y, .output_count = 1},
            NULL) == AP_OK);
  const uint8_t *b;
  size_t n;
  CHECK(ap_writer_finish(w, &b, &n) == AP_OK);
  *bytes = aligned_alloc(16, (n + 15) / 16 * 16);
  memcpy(*bytes, b, n);
  ap_writer_destroy(w);
  ap_model *m = NULL;
  CHECK(ap_model_from_buffer(*bytes, n, "crafted", NULL, &m) == AP_OK);
  return m;
}

static void test_add_and_replace(bool external) {
  uint8_t *bytes;
  ap_model *m = build(external, &bytes);
  ap_model_patch pt, pt2;
  const uint8_t data[5] = {1, 2, 3, 4, 5};
  CHECK(ap_model_patch_metadata(m, "extra", data, 5, NULL, &pt) == AP_OK);
  size_t size0;
  ap_model_bytes(m, &size0);
  CHECK(pt.size > size0 && (pt.size - size0) % 16 == 0); /* a block keeping 16-byte alignment */
  ap_model *m2 = NULL;
  CHECK_MSG(ap_model_from_buffer(pt.bytes, pt.size, "patched", NULL, &m2) == AP_OK, "%s",
            ap_model_error(m2));
  CHECK_EQ(ap_model_metadata_count(m2), 2);
  CHECK_EQ(ap_model_buffer_count(m2), ap_model_buffer_count(m) + 1);
  ap_metadata_info md;
  CHECK(ap_model_metadata(m2, 0, &md) == AP_OK);
  CHECK_STR(md.name, "note");
  CHECK(ap_model_metadata(m2, 1, &md) == AP_OK);
  CHECK_STR(md.name, "extra");
  CHECK_EQ(md.buffer, ap_model_buffer_count(m));
  size_t s;
  const uint8_t *d = ap_model_buffer(m2, md.buffer, &s);
  CHECK(s == 5 && memcmp(d, data, 5) == 0);
  CHECK(((uintptr_t)d - (uintptr_t)pt.bytes) % 16 == 0); /* force_align: 16 */
  for (size_t b = 0; b < ap_model_buffer_count(m); b++) {
    size_t s1, s2;
    const uint8_t *b1 = ap_model_buffer(m, b, &s1), *b2 = ap_model_buffer(m2, b, &s2);
    CHECK(s1 == s2 && (s1 == 0 || memcmp(b1, b2, s1) == 0));
    if (s1) CHECK(((uintptr_t)b2 - (uintptr_t)pt.bytes) % 16 == 0);
  }
  ap_tensor_info t1, t2;
  CHECK(ap_model_tensor(m2, 0, 1, &t2) == AP_OK && ap_model_tensor(m, 0, 1, &t1) == AP_OK);
  CHECK_STR(t2.name, "c");
  CHECK_EQ(t2.buffer, t1.buffer);
  /* Replacing "note": still two entries, the new one last. */
  CHECK(ap_model_patch_metadata(m2, "note", "xy", 2, NULL, &pt2) == AP_OK);
  ap_model *m3 = NULL;
  CHECK(ap_model_from_buffer(pt2.bytes, pt2.size, "patched2", NULL, &m3) == AP_OK);
  CHECK_EQ(ap_model_metadata_count(m3), 2);
  CHECK(ap_model_metadata(m3, 0, &md) == AP_OK);
  CHECK_STR(md.name, "extra");
  CHECK(ap_model_metadata(m3, 1, &md) == AP_OK);
  CHECK_STR(md.name, "note");
  d = ap_model_buffer(m3, md.buffer, &s);
  CHECK(s == 2 && memcmp(d, "xy", 2) == 0);
  ap_model_destroy(m3);
  ap_model_patch_free(&pt2, NULL);
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  ap_model_destroy(m);
  free(bytes);
}

static void test_misuse(void) {
  uint8_t *bytes;
  ap_model *m = build(false, &bytes);
  ap_model_patch pt;
  CHECK(ap_model_patch_metadata(m, NULL, "a", 1, NULL, &pt) == AP_ERR_ARG);
  CHECK_STR(pt.error, "metadata needs a name and its bytes");
  CHECK(ap_model_patch_metadata(m, "", "a", 1, NULL, &pt) == AP_ERR_ARG);
  CHECK(ap_model_patch_metadata(m, "x", NULL, 1, NULL, &pt) == AP_ERR_ARG);
  CHECK(ap_model_patch_metadata(NULL, "x", "a", 1, NULL, &pt) == AP_ERR_ARG);
  CHECK(ap_model_patch_metadata(m, "x", "a", 1, NULL, NULL) == AP_ERR_ARG);
  CHECK(ap_model_patch_metadata(m, "x", "a", (size_t)INT32_MAX + 1, NULL, &pt) == AP_ERR_OVERFLOW);
  ap_model_patch_free(NULL, NULL);
  ap_model_destroy(m);
  free(bytes);
}

int main(void) {
  test_add_and_replace(false);
  test_add_and_replace(true);
  test_misuse();
  return ap_test_done();
}
