// SPDX-License-Identifier: Apache-2.0
// tracesweep <command> [options] inputs…
#include <iostream>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  return tracesweep::cli::run(argc, argv, std::cerr);
}
