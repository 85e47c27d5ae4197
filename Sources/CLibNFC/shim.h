// libnfc, as installed by Debian's libnfc-dev. The header is used for its types and constants
// only: nothing is linked (and not through pkg-config, whose Libs would link libnfc and libusb).
// LibNFCCalls.swift loads libnfc.so.6 with dlopen when a libnfc reader is first listed or
// opened, and resolves each function below from that handle, typed by the pointer types
// declared here.
#ifndef NFCKIT_CLIBNFC_SHIM_H
#define NFCKIT_CLIBNFC_SHIM_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <nfc/nfc.h>

// A pointer to each function LibNFCCalls.swift resolves, typed from the header's own declaration
// (so a resolved symbol is called with exactly its C signature): clibnfc_fn_NAME.
#define CLIBNFC_FUNCTION(name) typedef __typeof__(name) *clibnfc_fn_##name;
CLIBNFC_FUNCTION(nfc_version)
CLIBNFC_FUNCTION(nfc_init)
CLIBNFC_FUNCTION(nfc_list_devices)
CLIBNFC_FUNCTION(nfc_open)
CLIBNFC_FUNCTION(nfc_close)
CLIBNFC_FUNCTION(nfc_device_get_name)
CLIBNFC_FUNCTION(nfc_initiator_init)
CLIBNFC_FUNCTION(nfc_device_set_property_bool)
CLIBNFC_FUNCTION(nfc_device_get_supported_modulation)
CLIBNFC_FUNCTION(nfc_initiator_select_passive_target)
CLIBNFC_FUNCTION(nfc_initiator_list_passive_targets)
CLIBNFC_FUNCTION(nfc_initiator_transceive_bytes)
CLIBNFC_FUNCTION(nfc_initiator_target_is_present)
CLIBNFC_FUNCTION(nfc_initiator_deselect_target)
CLIBNFC_FUNCTION(nfc_target_init)
CLIBNFC_FUNCTION(nfc_target_receive_bytes)
CLIBNFC_FUNCTION(nfc_target_send_bytes)
CLIBNFC_FUNCTION(nfc_idle)
CLIBNFC_FUNCTION(nfc_strerror)
CLIBNFC_FUNCTION(nfc_device_get_information_about)
CLIBNFC_FUNCTION(nfc_free)
#undef CLIBNFC_FUNCTION
#endif
