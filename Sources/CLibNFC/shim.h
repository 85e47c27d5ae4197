// libnfc, as installed by Debian's libnfc-dev (pkg-config: libnfc).
#ifndef NFCKIT_CLIBNFC_SHIM_H
#define NFCKIT_CLIBNFC_SHIM_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <nfc/nfc.h>
#endif
