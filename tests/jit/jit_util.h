/* Helpers shared by the tests of jit/: compile a finished builder, read ELF sections. */
#ifndef JIT_UTIL_H
#define JIT_UTIL_H

#include "jb_int.h"
#include "jc.h"
#include "jc_codeobj.h"

#include <stddef.h>
#include <stdint.h>

/** finish + verify + O3 + object (+ link when hsaco is non-NULL). Destroys b. On MXJIT_OK the
 *  outputs are malloc'd. asm_text (may be NULL) gets the assembly. msg gets errors. */
mxjit_status jit_compile_builder(jb_builder *b, void **obj, size_t *obj_size, void **hsaco,
                                 size_t *hsaco_size, char **asm_text, char *msg, size_t msglen);

/** Section `name` of an ELF64 image: pointer into img and size, or NULL. */
const uint8_t *jit_elf_section(const void *img, size_t size, const char *name, size_t *sec_size,
                               uint64_t *sec_addr);

#endif
