// pcsc-lite's PC/SC API (the PCSC target adds -I/usr/include/PCSC); Debian: libpcsclite-dev.
#include <winscard.h>
#include <reader.h>

// The protocol control information of T=0 / T=1 (SCARD_PCI_T0/T1 are macros Swift cannot import).
static inline const SCARD_IO_REQUEST *nfckit_pcsc_pci_t0(void) { return &g_rgSCardT0Pci; }
static inline const SCARD_IO_REQUEST *nfckit_pcsc_pci_t1(void) { return &g_rgSCardT1Pci; }
