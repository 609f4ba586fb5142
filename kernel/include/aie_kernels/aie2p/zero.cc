// zero.cc for aie2p (tessel's kernel library): the aie2 templates.
#include "../aie2/zero.cc"
