// Test support, never shipped: pcsc-lite reads PCSCLITE_CSOCK_NAME once per process, at its
// first call, and keeps that path. The test process runs every test target together, so the
// first in-process pcsc-lite call may come from any test (a devices listing, an availability
// check) before the PC/SC suites point the library at their private pcscd. Here, when the
// test bundle loads and before any test runs, the library is made to fix its path to a link
// of this process's own, which InProcessPCSC re-points at each test's daemon. The
// environment is restored at once, so child processes the tests start are not affected.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The two pcsc-lite calls this file makes, declared as winscard.h declares them on Linux (DWORD
// is unsigned long; LONG and SCARDCONTEXT are long) rather than included from /usr/include/PCSC,
// which only an -I flag (an unsafe flag) reaches.
extern long SCardEstablishContext(unsigned long dwScope, const void *pvReserved1, const void *pvReserved2, long *phContext);
extern long SCardReleaseContext(long hContext);
#define SCARD_SCOPE_SYSTEM 0x0002UL
#define SCARD_S_SUCCESS 0L

#include "CPCSCTestSocket.h"

static char link_path[512];

const char *nfckit_test_pcsc_socket_link(void) { return link_path; }

__attribute__((constructor)) static void nfckit_fix_pcsc_socket(void) {
    const char *temporary = getenv("TMPDIR");
    if (temporary == NULL || temporary[0] == '\0') temporary = "/tmp";
    snprintf(link_path, sizeof link_path, "%s/nfckit-pcsc-%d.comm", temporary, (int)getpid());

    char *previous = NULL;
    const char *set = getenv("PCSCLITE_CSOCK_NAME");
    if (set != NULL) previous = strdup(set);
    setenv("PCSCLITE_CSOCK_NAME", link_path, 1);
    // No daemon behind the link yet: the call fails at once (SCARD_E_NO_SERVICE), after the
    // library has read and kept the path.
    long context = 0;
    if (SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &context) == SCARD_S_SUCCESS) SCardReleaseContext(context);
    if (previous != NULL) {
        setenv("PCSCLITE_CSOCK_NAME", previous, 1);
        free(previous);
    } else {
        unsetenv("PCSCLITE_CSOCK_NAME");
    }
}
