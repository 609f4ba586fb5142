// Handlers of the Python dispatch tests' probe program. Each returns, as its
// command's result word, one value the host set through Program (a define,
// an optimisation level, a compile-time or runtime argument), so a test sees
// that the field reached the kernel it names.
#pragma once
#include <stdint.h>

constexpr uint32_t kHandlerDefine = 1;        // writer: PROBE_VALUE, a define of all three kernels (0 unset)
constexpr uint32_t kHandlerWriterOpt = 2;     // writer: KM_OPT_LEVEL (kNoOptLevel when it is not defined)
constexpr uint32_t kHandlerReaderOpt = 3;     // reader: the same for the reader
constexpr uint32_t kHandlerCompileArg = 4;    // writer: its compile-time argument 0
constexpr uint32_t kHandlerWriterArg = 5;     // writer: the program's runtime argument 0 of the writer
constexpr uint32_t kHandlerReaderArg = 6;     // reader: the same for the reader
constexpr uint32_t kHandlerComputeArg = 7;    // compute: the same for the compute kernel
constexpr uint32_t kHandlerCoreIndex = 8;     // writer: persistent::core_index()
constexpr uint32_t kHandlerWriterBuild = 9;   // writer: build_flags() as the writer was compiled
constexpr uint32_t kHandlerComputeBuild = 10; // compute: the same for the compute kernel
constexpr uint32_t kNoOptLevel = 0xFFFF;
