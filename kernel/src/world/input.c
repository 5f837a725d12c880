/* Player input records: explicit little-endian (de)serialisation. */
#include "fixstep/input.h"

fxs_input fxs_input_neutral(void)
{
	fxs_input in = { 0, 0, 0, 0, 0 };
	return in;
}

bool fxs_input_equal(const fxs_input *a, const fxs_input *b)
{
	if (!a || !b)
		return a == b;
	return a->move_x == b->move_x && a->move_z == b->move_z && a->yaw == b->yaw && a->pitch == b->pitch &&
		a->buttons == b->buttons;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* int16 <-> uint16 without implementation-defined conversions */
static uint16_t from_i16(int16_t v) { return v < 0 ? (uint16_t)(65536 + (int32_t)v) : (uint16_t)v; }
static int16_t to_i16(uint16_t v) { return v >= 32768u ? (int16_t)((int32_t)v - 65536) : (int16_t)v; }

void fxs_input_write(const fxs_input *in, uint8_t out[FXS_INPUT_SIZE])
{
	if (!in || !out)
		return;
	put16(out + 0, from_i16(in->move_x));
	put16(out + 2, from_i16(in->move_z));
	put16(out + 4, in->yaw);
	put16(out + 6, from_i16(in->pitch));
	put16(out + 8, (uint16_t)in->buttons);
	put16(out + 10, (uint16_t)(in->buttons >> 16));
}

fxs_input fxs_input_read(const uint8_t in[FXS_INPUT_SIZE])
{
	if (!in)
		return fxs_input_neutral();
	fxs_input r;
	r.move_x = to_i16(get16(in + 0));
	r.move_z = to_i16(get16(in + 2));
	r.yaw = get16(in + 4);
	r.pitch = to_i16(get16(in + 6));
	r.buttons = (uint32_t)get16(in + 8) | ((uint32_t)get16(in + 10) << 16);
	return r;
}
