/*===- tp-c/TP.h - tp's C API -------------------------------------*- C -*-===*\
|*                                                                            *|
|* The C API of tp, in the style of upstream's mlir-c: include this header    *|
|* and link the TPCAPI library. It declares the dialects                      *|
|* (tp-c/Dialects.h), the passes, plans and the communication report          *|
|* (tp-c/Transforms.h), running a partitioned module on N rank threads        *|
|* (tp-c/Runtime.h) and the library's version. docs/embedding.md ("The C     *|
|* API") says how to use them.                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_TP_H
#define TP_C_TP_H

#include "tp-c/Dialects.h"
#include "tp-c/Runtime.h"
#include "tp-c/Transforms.h"

#ifdef __cplusplus
extern "C" {
#endif

/// tp's version, "MAJOR.MINOR.PATCH"; a static string (not to be freed).
MLIR_CAPI_EXPORTED const char *tpGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif // TP_C_TP_H
