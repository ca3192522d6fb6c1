/* A streamed plan's entry point: the only reference from a planned firmware to the streaming
 * code (stream.c), so that firmware without segments does not link it. */
#include "planned.h"
#include "runtime_internal.h"

static const rt_planned_stream stream = {rt_stream_member, rt_stream_scratch, rt_stream_run};

ap_status ap_interpreter_create_planned_streamed(const void *model, size_t model_size,
                                                 const uint32_t *plan, size_t plan_words,
                                                 void *buffer, size_t buffer_size,
                                                 ap_interpreter **out) {
  return rt_create_planned(model, model_size, plan, plan_words, buffer, buffer_size, &stream, out);
}
