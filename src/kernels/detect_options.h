/* TFLite_Detection_PostProcess's options, parsed from its FlexBuffer map. Apart from the
 * kernel's header so that code outside the kernels (the fuzz harness) can use the parser
 * without the kernels' types. */
#ifndef AP_KERNELS_DETECT_OPTIONS_H
#define AP_KERNELS_DETECT_OPTIONS_H

#include "base/base.h"

typedef struct ap_detect_options {
  int32_t max_detections, max_classes_per_detection, detections_per_class, num_classes;
  bool use_regular_nms;
  float score_threshold, iou_threshold;
  float y_scale, x_scale, h_scale, w_scale;
} ap_detect_options;

/* Parses and checks the FlexBuffer options: a missing required key, a wrong type or an
 * out-of-range count is AP_ERR_FORMAT with one line naming the key. */
ap_status ap_detect_parse_options(const uint8_t *bytes, size_t size, ap_detect_options *o,
                                  ap_errbuf *err);

#endif
