// TESSEL_TILE_LOOP marks a function whose body is a loop over a tile: on
// x86-64 the compiler emits an AVX2 clone next to the baseline one and the
// loader picks the one the host supports (GCC target_clones, resolved once).
// The clones compute bit-identical results (no FMA contraction is allowed in
// ISO C++ mode), so results do not depend on the host. Sanitizer builds keep
// one version: ifunc resolvers run before the sanitizer runtime starts. So do
// clang builds (the fuzz preset): clang 14 cannot clone function templates.
#pragma once

#if defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) &&                                    \
    !defined(__SANITIZE_UNDEFINED__) && !defined(__SANITIZE_THREAD__)
#define TESSEL_TILE_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define TESSEL_TILE_LOOP
#endif
