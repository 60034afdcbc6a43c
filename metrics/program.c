/* program.c: what the metrics derive from the vocabulary for the static
 * program description (program.h). */
#include "program.h"

#include <stddef.h>

static const unsigned char opcode_categories[PISA_OPCODE_MAX] = {
#define PISA_OPCODE_CATEGORY(Num, Name, Cat) [Num] = PISA_CAT_##Cat,
    PISA_OPCODES(PISA_OPCODE_CATEGORY)
#undef PISA_OPCODE_CATEGORY
};

static const char *const opcode_names[PISA_OPCODE_MAX] = {
#define PISA_OPCODE_NAME(Num, Name, Cat) [Num] = Name,
    PISA_OPCODES(PISA_OPCODE_NAME)
#undef PISA_OPCODE_NAME
};

const char *program_opcode_name(unsigned opcode) {
  return opcode < PISA_OPCODE_MAX ? opcode_names[opcode] : NULL;
}

unsigned program_category(unsigned opcode) {
  return program_opcode_name(opcode) ? opcode_categories[opcode]
                                     : PISA_CAT_OTHER;
}
