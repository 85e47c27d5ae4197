// Debian's libpq-dev installs the header under postgresql/; found here without pkg-config's
// flags, which would also link libpq (-lpq).
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#include <libpq-fe.h>
#endif
