/* The detect helper's kernels: the custom op TFLite_Detection_PostProcess and TFLite's legacy
 * uint8 kernels (the real uint8 SSD detector's ops). */
#ifndef AP_KERNELS_KOPS_DETECT_H
#define AP_KERNELS_KOPS_DETECT_H

#include "kernels/detect_options.h"
#include "kernels/kernels.h"
#include "kernels/registry.h"

/* detection_postprocess.c: TFLite_Detection_PostProcess (options from its FlexBuffer map).
 * Inputs: box encodings [1, N, >=4], class predictions [1, N, C], anchors [N, 4]; float32, or
 * uint8/int8 dequantized as TFLite's kernel does. Outputs (float32): boxes [1, D, 4], classes
 * [1, D], scores [1, D], count [1], D = max_detections * max_classes_per_detection; a model
 * output of unknown shape (rank 0) gets that shape, a given one must hold it. The options'
 * parser is in detect_options.h. */

/* What prepare leaves for eval: the options, the shapes it checked and the scratch layout
 * (byte offsets into the scratch block). */
typedef struct ap_detect_params {
  ap_detect_options o;
  int32_t num_boxes, box_stride, num_scores; /* N, box encodings' dim 2, C */
  int box_type, score_type, anchor_type;
  float box_scale, score_scale, anchor_scale;
  int32_t box_zp, score_zp, anchor_zp;
  int32_t out_capacity; /* entries the outputs hold (boxes: 4 floats each) */
  int32_t merge_capacity;
  size_t off_decoded, off_scores, off_class, off_keep_scores, off_keep_idx, off_sorted, off_tmp,
      off_active, off_selected, off_cls_idx, off_m_idx, off_m_score, off_m_idx2, off_m_score2;
} ap_detect_params;

ap_status ap_detect_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_detect_eval(ap_kctx *c);

/* lut_uint8.c: LUTPopulate<uint8_t> / <int8_t> of TFLite for LOGISTIC or TANH (AP_KUN_*);
 * indexed by the input byte (int8 values as their uint8 bit pattern). */
void ap_kdetect_lut8(int type, int op, float in_scale, int32_t in_zp, float out_scale,
                     int32_t out_zp, uint8_t lut[256]);
/* reference_ops::ConcatenationWithScaling's requantization of one uint8 block (float scale and
 * bias, rounded half away from zero, clamped to [0, 255]). Scales must be positive. */
void ap_kdetect_requant_u8(uint8_t *dst, const uint8_t *src, size_t n, float in_scale,
                           int32_t in_zp, float out_scale, int32_t out_zp);

#endif
