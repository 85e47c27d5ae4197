// pcsc-lite's PC/SC API, the part PCSCCalls.swift uses, declared here from pcsc-lite's own
// headers (pcsclite.h, wintypes.h, winscard.h of pcsc-lite 1.8 and 2.x; Debian: libpcsclite-dev)
// rather than included: they live in /usr/include/PCSC, which only an -I flag reaches. Types and
// constants only; no function is declared, so nothing can call pcsc-lite without the handle
// PCSCCalls.swift opens with dlopen("libpcsclite.so.1"): each function is resolved from it,
// typed by the pointer types below (cpcsc_fn_NAME, the signature winscard.h declares).
#ifndef NFCKIT_CPCSCLITE_SHIM_H
#define NFCKIT_CPCSCLITE_SHIM_H

// wintypes.h: pcsc-lite's Windows types, `unsigned long` and `long` except on macOS.
#ifdef __APPLE__
#include <stdint.h>
typedef uint32_t DWORD;
typedef int32_t LONG;
#else
typedef unsigned long DWORD;
typedef long LONG;
#endif

// pcsclite.h: handles, the reader state, the protocol control information.
typedef LONG SCARDCONTEXT;
typedef LONG SCARDHANDLE;

#define MAX_ATR_SIZE 33

#ifdef __APPLE__
#pragma pack(1)
#endif
typedef struct {
    const char *szReader;
    void *pvUserData;
    DWORD dwCurrentState;
    DWORD dwEventState;
    DWORD cbAtr;
    unsigned char rgbAtr[MAX_ATR_SIZE];
} SCARD_READERSTATE;

typedef struct {
    unsigned long dwProtocol;
    unsigned long cbPciLength;
} SCARD_IO_REQUEST;
#ifdef __APPLE__
#pragma pack()
#endif

#define SCARD_SCOPE_SYSTEM 0x0002
#define SCARD_PROTOCOL_T0 0x0001
#define SCARD_PROTOCOL_T1 0x0002
#define SCARD_SHARE_SHARED 0x0002
#define SCARD_LEAVE_CARD 0x0000
#define SCARD_RESET_CARD 0x0001
#define SCARD_PRESENT 0x0004
#define SCARD_STATE_UNAWARE 0x0000
#define SCARD_STATE_CHANGED 0x0002
#define SCARD_STATE_UNKNOWN 0x0004
#define SCARD_STATE_UNAVAILABLE 0x0008
#define SCARD_STATE_EMPTY 0x0010
#define SCARD_STATE_PRESENT 0x0020
#define SCARD_STATE_MUTE 0x0200

// winscard.h: a pointer to each function PCSCCalls.swift resolves.
typedef LONG (*cpcsc_fn_SCardEstablishContext)(DWORD dwScope, const void *pvReserved1, const void *pvReserved2,
                                               SCARDCONTEXT *phContext);
typedef LONG (*cpcsc_fn_SCardReleaseContext)(SCARDCONTEXT hContext);
typedef LONG (*cpcsc_fn_SCardIsValidContext)(SCARDCONTEXT hContext);
typedef LONG (*cpcsc_fn_SCardListReaders)(SCARDCONTEXT hContext, const char *mszGroups, char *mszReaders,
                                          DWORD *pcchReaders);
typedef LONG (*cpcsc_fn_SCardConnect)(SCARDCONTEXT hContext, const char *szReader, DWORD dwShareMode,
                                      DWORD dwPreferredProtocols, SCARDHANDLE *phCard, DWORD *pdwActiveProtocol);
typedef LONG (*cpcsc_fn_SCardDisconnect)(SCARDHANDLE hCard, DWORD dwDisposition);
typedef LONG (*cpcsc_fn_SCardStatus)(SCARDHANDLE hCard, char *mszReaderName, DWORD *pcchReaderLen, DWORD *pdwState,
                                     DWORD *pdwProtocol, unsigned char *pbAtr, DWORD *pcbAtrLen);
typedef LONG (*cpcsc_fn_SCardTransmit)(SCARDHANDLE hCard, const SCARD_IO_REQUEST *pioSendPci,
                                       const unsigned char *pbSendBuffer, DWORD cbSendLength,
                                       SCARD_IO_REQUEST *pioRecvPci, unsigned char *pbRecvBuffer,
                                       DWORD *pcbRecvLength);
typedef LONG (*cpcsc_fn_SCardControl)(SCARDHANDLE hCard, DWORD dwControlCode, const void *pbSendBuffer,
                                      DWORD cbSendLength, void *pbRecvBuffer, DWORD cbRecvLength,
                                      DWORD *lpBytesReturned);
typedef LONG (*cpcsc_fn_SCardGetStatusChange)(SCARDCONTEXT hContext, DWORD dwTimeout,
                                              SCARD_READERSTATE *rgReaderStates, DWORD cReaders);
typedef LONG (*cpcsc_fn_SCardCancel)(SCARDCONTEXT hContext);

#endif
