/* broken.c: a sweep test benchmark that does not compile. */
int main(void) { return undeclared_variable; }
