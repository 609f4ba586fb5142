// The graph example's handlers and buffers, shared by its kernels and
// drivers (the spec's examples/06_graph). The state is a uint32 tensor of
// kRows rows of kWords words, a row a DRAM page; core c of a group works on
// row first + c.
#pragma once
#include <stdint.h>

constexpr uint32_t kHandlerStep = 1;  // args: state, iteration: x += iteration + 1 on every row of the group
constexpr uint32_t kHandlerLeft = 2;  // args: state: x *= 2 on the group's rows
constexpr uint32_t kHandlerRight = 3; // args: state: x += x / 2 on the group's rows
constexpr uint32_t kHandlerNorm = 4;  // args: state, rows: the leader returns the sum of rows 0 .. rows - 1
constexpr uint32_t kRows = 60;
constexpr uint32_t kWords = 16;
constexpr uint32_t kRowBytes = kWords * 4;
constexpr uint32_t kCbRow = 0; // one row
