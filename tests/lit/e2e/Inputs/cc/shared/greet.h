/* greet.h: interface of the user shared library in cc-shared.test. */
#ifndef GREET_H
#define GREET_H

/* Writes "hello, NAME" and returns the number of letters in name. */
int greet(const char *name);

#endif
