#ifndef TOKENCALL_CZLIB_SHIM_H
#define TOKENCALL_CZLIB_SHIM_H
#include <zlib.h>
#endif
