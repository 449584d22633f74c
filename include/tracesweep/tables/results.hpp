// SPDX-License-Identifier: Apache-2.0
// Every job-level table (overview, model, distributed, kernels, operators, tb, tb operators,
// Paddle's other summaries, memory): what each computes. The registry of these tables, and their
// result tables, are in job_table_registry.hpp.
#pragma once

#include <tracesweep/tables/device_summary.hpp>
#include <tracesweep/tables/distributed.hpp>
#include <tracesweep/tables/kernel_table.hpp>
#include <tracesweep/tables/memory_table.hpp>
#include <tracesweep/tables/model_summary.hpp>
#include <tracesweep/tables/operator_detail.hpp>
#include <tracesweep/tables/operator_table.hpp>
#include <tracesweep/tables/overview.hpp>
#include <tracesweep/tables/perf_summary.hpp>
#include <tracesweep/tables/tb_operators.hpp>
#include <tracesweep/tables/tb_overview.hpp>
#include <tracesweep/tables/user_range_summary.hpp>
