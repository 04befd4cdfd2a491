// Shared between the target's C files; not part of its module.
#ifndef LAYOUTD_CEVHTTPFASTPATHS_INTERNAL_H
#define LAYOUTD_CEVHTTPFASTPATHS_INTERNAL_H

#include <stdint.h>

/// Whether a return address lies in libevent's executable segment (found at load): the call
/// came from libevent itself.
int layoutd_called_from_libevent(uintptr_t return_address);

#endif
