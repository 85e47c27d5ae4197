// Test support: where this test process's pcsc-lite looks for pcscd (see socket.c).
#ifndef CPCSCTESTSOCKET_H
#define CPCSCTESTSOCKET_H

/// The socket path this process's pcsc-lite uses, fixed when the test bundle loads.
const char *nfckit_test_pcsc_socket_link(void);

#endif
