// Metalium's NoC alignment constants (noc_parameters.h) for the arch the
// kernel is built for. The JIT passes the arch's alignments to kernels whose
// own code names an _ALIGNMENT macro or ARCH_* (src/jit/cache_key.cpp); they
// are plain numbers, usable in #if. A kernel built without a device (no
// arch) does not have them.
#ifndef TESSEL_NOC_ALIGNMENT_H
#define TESSEL_NOC_ALIGNMENT_H

#ifdef TESSEL_NOC_L1_ALIGNMENT
#define NOC_L1_READ_ALIGNMENT_BYTES TESSEL_NOC_L1_ALIGNMENT
#define NOC_L1_WRITE_ALIGNMENT_BYTES TESSEL_NOC_L1_ALIGNMENT
#define NOC_DRAM_READ_ALIGNMENT_BYTES TESSEL_NOC_DRAM_READ_ALIGNMENT
#define NOC_DRAM_WRITE_ALIGNMENT_BYTES TESSEL_NOC_DRAM_WRITE_ALIGNMENT
#define L1_ALIGNMENT TESSEL_NOC_L1_ALIGNMENT
#define DRAM_ALIGNMENT                                                                                                 \
  (TESSEL_NOC_DRAM_READ_ALIGNMENT >= TESSEL_NOC_DRAM_WRITE_ALIGNMENT ? TESSEL_NOC_DRAM_READ_ALIGNMENT                  \
                                                                       : TESSEL_NOC_DRAM_WRITE_ALIGNMENT)
#endif

#endif // TESSEL_NOC_ALIGNMENT_H
