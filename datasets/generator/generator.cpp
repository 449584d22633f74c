// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the owning work item.
namespace tracesweep {}
