/* AP_NO_MESSAGES (the microcontroller build's default): ap_fail, rt_fail and ap_op_fail keep
 * the status and write the status's name, cut to the buffer, never a formatted message. */
#define AP_NO_MESSAGES
#include "base/base.h"
#include "runtime/runtime_internal.h"
#include "test.h"

int main(void) {
  ap_errbuf e = {{0}};
  CHECK_EQ(ap_fail(&e, AP_ERR_RANGE, "index %d of %s", 5, "x"), AP_ERR_RANGE);
  CHECK_STR(e.msg, "AP_ERR_RANGE");
  CHECK_EQ(ap_fail(&e, AP_OK, "note"), AP_OK);
  CHECK_STR(e.msg, "AP_OK");
  CHECK_EQ(ap_fail(NULL, AP_ERR_ARG, "no buffer"), AP_ERR_ARG);
  CHECK_EQ(ap_fail(&e, (ap_status)999, "unknown"), (ap_status)999);
  CHECK_STR(e.msg, "AP_ERR_UNKNOWN");

  /* Cut to the buffer, always terminated; nothing written without room. */
  char m[4] = "zzz", z[1] = {'z'};
  ap_fail_code(m, sizeof m, AP_ERR_FORMAT);
  CHECK_STR(m, "AP_");
  ap_fail_code(z, sizeof z, AP_ERR_IO);
  CHECK_EQ(z[0], '\0');
  ap_fail_code(NULL, 8, AP_ERR_IO);
  ap_fail_code(m, 0, AP_ERR_IO);
  CHECK_STR(m, "AP_");

  /* The runtime's: the interpreter's message is the status's name. */
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_interpreter_create(NULL, NULL, &it), AP_ERR_ARG);
  CHECK(it != NULL);
  if (it) {
    CHECK_EQ(rt_fail(it, AP_ERR_KERNEL, "op %u: %s", 3u, "bad"), AP_ERR_KERNEL);
    CHECK_STR(ap_interpreter_error(it), "AP_ERR_KERNEL");
    ap_op_context c = {.it = it};
    CHECK_EQ(ap_op_fail(&c, AP_ERR_UNSUPPORTED, "type %d", 7), AP_ERR_UNSUPPORTED);
    CHECK_STR(ap_interpreter_error(it), "AP_ERR_UNSUPPORTED");
    CHECK_EQ(ap_op_fail(NULL, AP_ERR_ARG, "none"), AP_ERR_ARG);
  }
  ap_interpreter_destroy(it);
  return ap_test_done();
}
