/* Little-endian fields of the session's wire formats (protocol.c, xfer.c,
 * join.c): the same bytes on every machine. Private. */
#ifndef FXS_SESSION_LE_H
#define FXS_SESSION_LE_H

#include <stdint.h>

static inline void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffffu);
	put16(p + 2, v >> 16);
}
static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }
static inline uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

#endif
