// SPDX-License-Identifier: Apache-2.0
// Every job-level table (overview, model, distributed, kernels, operators, tb, tb operators,
// Paddle's other summaries, memory): what each computes. The registry of these tables, and their
// result tables, are in job_table_registry.hpp.
#pragma once

#include <tracesweep/reports/paddle/device_summary.hpp>
#include <tracesweep/reports/paddle/distributed.hpp>
#include <tracesweep/reports/paddle/kernel_table.hpp>
#include <tracesweep/reports/paddle/memory_table.hpp>
#include <tracesweep/reports/paddle/model_summary.hpp>
#include <tracesweep/reports/paddle/operator_detail.hpp>
#include <tracesweep/reports/paddle/operator_table.hpp>
#include <tracesweep/reports/paddle/overview.hpp>
#include <tracesweep/reports/paddle/perf_summary.hpp>
#include <tracesweep/reports/paddle/user_range_summary.hpp>
#include <tracesweep/reports/tensorboard/tb_operators.hpp>
#include <tracesweep/reports/tensorboard/tb_overview.hpp>
