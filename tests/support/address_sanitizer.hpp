// SPDX-License-Identifier: Apache-2.0
// TRACESWEEP_TEST_ASAN: 1 when the test is built with AddressSanitizer (GCC says so with
// __SANITIZE_ADDRESS__, clang with __has_feature), for the tests that limit address space or
// measure resident memory, which the sanitizer's shadow memory makes meaningless.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TRACESWEEP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACESWEEP_TEST_ASAN 1
#endif
#endif
#ifndef TRACESWEEP_TEST_ASAN
#define TRACESWEEP_TEST_ASAN 0
#endif
