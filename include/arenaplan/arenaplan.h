/* arenaplan: plan, run and explain the tensor memory of TFLite models. One include for all. */
#ifndef ARENAPLAN_H
#define ARENAPLAN_H

#include "arenaplan/base.h"
#include "arenaplan/model.h"
#include "arenaplan/options.h"
#include "arenaplan/plan.h"
#include "arenaplan/writer.h"
#include "arenaplan/graph.h"
#include "arenaplan/report.h"
#include "arenaplan/runtime.h"
#include "arenaplan/tflm.h"

#endif
