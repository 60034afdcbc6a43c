/* marker.c: an object with (or, with -DFAKE_UNINSTRUMENTED, without) the
 * pass's marker section and no includes, so clang can build it for any
 * target; the run tests use it to check the ELF32 reader. */
#ifndef FAKE_UNINSTRUMENTED
__attribute__((section("pisa_modules"), used)) static const char mark[] = "p";
#endif
int marker_object;
