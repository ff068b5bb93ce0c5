/* kc_key: canonical key material, the 128-bit hash, and key sensitivity to every field. */
#include "kc_fixture.h"

#include <stdint.h>

#define GOLDEN_EMPTY "a0c7c496ea82bf74ecce20dbe26d2e3d"
#define GOLDEN_MXJIT "0d49a1362db1e65ef4f3d41e1cd19185"
#define GOLDEN_100 "d8a579c9563b5f71440220d43903fb8c"

static void
hex128(const uint8_t h[16], char out[33])
{
   for (int i = 0; i < 16; i++)
      snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* Pinned values: the hash names files on disk, so a change here must bump KC_FORMAT_VERSION. */
Test(kc_hash, golden_values)
{
   uint8_t h[16];
   char s[33];
   kc_hash128("", 0, 0, h);
   hex128(h, s);
   cr_assert_str_eq(s, GOLDEN_EMPTY);
   kc_hash128("mxjit", 5, 0, h);
   hex128(h, s);
   cr_assert_str_eq(s, GOLDEN_MXJIT);
   char buf[100];
   for (int i = 0; i < 100; i++)
      buf[i] = (char)i;
   kc_hash128(buf, sizeof(buf), 42, h);
   hex128(h, s);
   cr_assert_str_eq(s, GOLDEN_100);
}

Test(kc_hash, length_and_seed_matter)
{
   uint8_t a[16], b[16];
   const char z[32] = {0};
   for (size_t n = 0; n < 32; n++) {
      kc_hash128(z, n, 0, a);
      kc_hash128(z, n + 1, 0, b);
      cr_assert_neq(memcmp(a, b, 16), 0, "zero runs of %zu and %zu bytes collide", n, n + 1);
   }
   kc_hash128("abc", 3, 1, a);
   kc_hash128("abc", 3, 2, b);
   cr_assert_neq(memcmp(a, b, 16), 0);
}

/* Avalanche: flipping any one input bit flips about half of the 128 output bits, and each
 * output bit flips in about half of the trials. */
Test(kc_hash, avalanche)
{
   uint8_t in[64], base[16], h[16];
   for (int i = 0; i < 64; i++)
      in[i] = (uint8_t)(i * 37 + 11);
   kc_hash128(in, sizeof(in), 0, base);
   unsigned per_bit[128] = {0}, total = 0, worst = 128;
   for (int bit = 0; bit < 512; bit++) {
      in[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      kc_hash128(in, sizeof(in), 0, h);
      in[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      unsigned flips = 0;
      for (int o = 0; o < 128; o++) {
         unsigned d = ((h[o / 8] ^ base[o / 8]) >> (o % 8)) & 1;
         per_bit[o] += d;
         flips += d;
      }
      total += flips;
      worst = flips < worst ? flips : worst;
   }
   double mean = total / 512.0;
   cr_assert(mean > 60.0 && mean < 68.0, "mean flipped bits %.2f", mean);
   cr_assert_geq(worst, 40u, "a single-bit flip changed only %u output bits", worst);
   for (int o = 0; o < 128; o++)
      cr_assert(per_bit[o] > 200 && per_bit[o] < 312, "output bit %d flipped %u/512", o,
                per_bit[o]);
}

Test(kc_key, deterministic_and_hex)
{
   kc_key a, b;
   kt_key(&a, 7);
   kt_key(&b, 7);
   cr_assert_eq(a.material_len, b.material_len);
   cr_assert_eq(memcmp(a.material, b.material, a.material_len), 0);
   cr_assert_eq(memcmp(a.hash, b.hash, 16), 0);
   char hex[33], want[33];
   kc_key_hex(&a, hex);
   hex128(a.hash, want);
   cr_assert_str_eq(hex, want);
   cr_assert_eq(strlen(hex), 32u);
   uint8_t h[16];
   kc_hash128(a.material, a.material_len, 0x6d786a69746b6579ull, h);
   cr_assert_eq(memcmp(h, a.hash, 16), 0, "the key hash is the hash of its material");
   cr_assert_eq(memcmp(a.material, "MXJITKEY", 8), 0);
   kc_key_fini(&a);
   kc_key_fini(&b);
   cr_assert_null(a.material);
   kc_key_fini(&a); /* twice is fine */
}

static const unsigned char other_params[] = {1, 2, 3, 4, 5};

/* One variant per key field; each must differ from the base key and from every other. */
Test(kc_key, each_field_changes_the_key)
{
   enum { N = 14 };
   kc_key_fields f[N];
   for (int i = 0; i < N; i++)
      f[i] = kt_fields(1);
   f[1].tpl_name = "mxfp4_cast";
   f[2].tpl_version = 4;
   f[3].params = other_params;
   f[4].params_len = 0;
   f[5].target = "gfx942";
   f[6].features = "+sramecc,+xnack";
   f[7].wave_size = 32;
   f[8].llvm_version = "22.1.1";
   f[9].abi_version = 2;
   f[10].build_id = "other-build";
   f[11].build_id = NULL;
   f[12].params = other_params;
   f[12].params_len = sizeof(other_params);
   f[13].target = "gfx95"; /* boundary shift between target and features */
   f[13].features = "0+sramecc,-xnack";
   kc_key k[N];
   for (int i = 0; i < N; i++)
      cr_assert_eq(kc_key_init(&k[i], &f[i]), MXJIT_OK, "variant %d", i);
   for (int i = 0; i < N; i++) {
      for (int j = i + 1; j < N; j++) {
         cr_assert_neq(memcmp(k[i].hash, k[j].hash, 16), 0, "variants %d and %d", i, j);
         cr_assert(k[i].material_len != k[j].material_len ||
                       memcmp(k[i].material, k[j].material, k[i].material_len) != 0,
                   "material of variants %d and %d", i, j);
      }
   }
   for (int i = 0; i < N; i++)
      kc_key_fini(&k[i]);
}

Test(kc_key, null_and_empty_strings_are_the_same)
{
   kc_key_fields f = kt_fields(1);
   kc_key a, b;
   f.features = NULL;
   cr_assert_eq(kc_key_init(&a, &f), MXJIT_OK);
   f.features = "";
   cr_assert_eq(kc_key_init(&b, &f), MXJIT_OK);
   cr_assert_eq(memcmp(a.hash, b.hash, 16), 0);
   kc_key_fini(&a);
   kc_key_fini(&b);
}

Test(kc_key, bad_fields_are_invalid_arg_with_message)
{
   kc_key k;
   char msg[256];
   struct {
      kc_key_fields f;
      const char *word;
   } cases[5];
   for (int i = 0; i < 5; i++)
      cases[i].f = kt_fields(1);
   cases[0].f.tpl_name = NULL, cases[0].word = "tpl_name";
   cases[1].f.target = "", cases[1].word = "target";
   cases[2].f.llvm_version = NULL, cases[2].word = "llvm_version";
   cases[3].f.params = NULL, cases[3].word = "params";
   cases[4].f.params_len = 1u << 20, cases[4].word = "params_len";
   for (int i = 0; i < 5; i++) {
      msg[0] = '\0';
      memset(&k, 0xab, sizeof(k));
      cr_assert_eq(kc_key_init_msg(&k, &cases[i].f, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
      cr_assert(strstr(msg, "cache: ") == msg, "%s", msg);
      cr_assert_not_null(strstr(msg, cases[i].word), "%s", msg);
      cr_assert_null(k.material);
      kc_key_fini(&k);
   }
   cr_assert_eq(kc_key_init(NULL, &cases[0].f), MXJIT_ERR_INVALID_ARG);
   cr_assert_eq(kc_key_init(&k, NULL), MXJIT_ERR_INVALID_ARG);
}

Test(kc_env, parse_size)
{
   uint64_t v = 0;
   cr_assert(kc_parse_size("123", &v) && v == 123);
   cr_assert(kc_parse_size("64K", &v) && v == 65536);
   cr_assert(kc_parse_size("16m", &v) && v == 16ull << 20);
   cr_assert(kc_parse_size("2G", &v) && v == 2ull << 30);
   const char *bad[] = {"", "K", "-1", "12Q", "1.5G", "0", "99999999999999999999", "16MB", NULL};
   for (int i = 0; bad[i]; i++)
      cr_assert_not(kc_parse_size(bad[i], &v), "'%s'", bad[i]);
   cr_assert_not(kc_parse_size(NULL, &v));
}

Test(kc_env, directory_precedence)
{
   kc_options o = {0};
   setenv("MXJIT_CACHE_DIR", "/x/mx", 1);
   setenv("XDG_CACHE_HOME", "/x/xdg", 1);
   setenv("HOME", "/x/home", 1);
   unsetenv("MXJIT_CACHE_MAX_SIZE");
   cr_assert_eq(kc_options_from_env(&o), MXJIT_OK);
   cr_assert_str_eq(o.dir, "/x/mx");
   cr_assert_eq(o.max_bytes, 0u);
   o = (kc_options){0};
   unsetenv("MXJIT_CACHE_DIR");
   cr_assert_eq(kc_options_from_env(&o), MXJIT_OK);
   cr_assert_str_eq(o.dir, "/x/xdg/mxjit");
   o = (kc_options){0};
   setenv("XDG_CACHE_HOME", "relative", 1); /* invalid per the XDG spec: ignored */
   cr_assert_eq(kc_options_from_env(&o), MXJIT_OK);
   cr_assert_str_eq(o.dir, "/x/home/.cache/mxjit");
   o = (kc_options){.dir = "/mine", .max_bytes = 5};
   setenv("MXJIT_CACHE_MAX_SIZE", "3M", 1);
   cr_assert_eq(kc_options_from_env(&o), MXJIT_OK);
   cr_assert_str_eq(o.dir, "/mine");
   cr_assert_eq(o.max_bytes, 5u);
   o = (kc_options){0};
   cr_assert_eq(kc_options_from_env(&o), MXJIT_OK);
   cr_assert_eq(o.max_bytes, 3u << 20);
}

Test(kc_env, bad_size_is_reported)
{
   kc_options o = {0};
   char msg[256] = "";
   setenv("MXJIT_CACHE_DIR", "/x/mx", 1);
   setenv("MXJIT_CACHE_MAX_SIZE", "lots", 1);
   cr_assert_eq(kc_options_from_env_msg(&o, msg, sizeof(msg)), MXJIT_ERR_INVALID_ARG);
   cr_assert_not_null(strstr(msg, "MXJIT_CACHE_MAX_SIZE='lots'"), "%s", msg);
   cr_assert_eq(o.max_bytes, 0u);
   cr_assert_str_eq(o.dir, "/x/mx");
}
