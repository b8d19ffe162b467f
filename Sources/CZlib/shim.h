#include <zlib.h>

/* inflateInit2 is a macro (not callable from Swift): starts `stream` on gzip data only (RFC 1952,
   a 32 KiB window; 15 + 16 asks for the gzip wrapper and its CRC-32 check). */
static inline int iap_inflate_init_gzip(z_stream *stream) { return inflateInit2(stream, 15 + 16); }
