/* Native libsodium (Debian's libsodium-dev) for session.test.mjs: the MAC
 * and the key derivation the sessions use, of the message and key given in
 * hex, printed in hex, to compare with the same calls in the package's wasm.
 *   native_sodium MESSAGE_HEX KEY_HEX SUBKEY_ID
 * prints "auth HEX" (crypto_auth: HMAC-SHA-512-256) and "kdf HEX"
 * (crypto_kdf_derive_from_key, 32 bytes, context "fxs-test"). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
	size_t n = strlen(s) / 2;
	for (size_t i = 0; i < n && i < cap; ++i)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
	return n < cap ? n : cap;
}

static void put(const char *what, const unsigned char *b, size_t n)
{
	printf("%s ", what);
	for (size_t i = 0; i < n; ++i)
		printf("%02x", b[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc != 4 || sodium_init() < 0)
		return 2;
	static unsigned char msg[4096];
	unsigned char key[crypto_auth_KEYBYTES] = { 0 }, mac[crypto_auth_BYTES], sub[32];
	size_t n = unhex(argv[1], msg, sizeof msg);
	unhex(argv[2], key, sizeof key);
	crypto_auth(mac, msg, n, key);
	put("auth", mac, sizeof mac);
	if (crypto_kdf_derive_from_key(sub, sizeof sub, strtoull(argv[3], NULL, 10), "fxs-test", key) != 0)
		return 1;
	put("kdf", sub, sizeof sub);
	return 0;
}
