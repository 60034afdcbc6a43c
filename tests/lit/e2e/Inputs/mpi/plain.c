/* plain.c: a program without MPI, for the merge error test. */
int main(void) { return 0; }
