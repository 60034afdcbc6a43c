/* quiet.c: a sweep test benchmark that succeeds without a checksum line. */
int main(void) { return 0; }
