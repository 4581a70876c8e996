#include "HearthShims.h"

int hearth_compiled_cpu_features(void) {
  int features = 0;
#if defined(__SSE4_1__)
  features |= 1;
#endif
#if defined(__AVX__)
  features |= 2;
#endif
#if defined(__AVX2__)
  features |= 4;
#endif
#if defined(__FMA__)
  features |= 8;
#endif
#if defined(__AVX512F__)
  features |= 16;
#endif
  return features;
}
