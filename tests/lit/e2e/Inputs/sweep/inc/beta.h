/* beta.h: the sweep test benchmark beta is two files; this header is found
 * through the manifest's include_dirs. */
#ifndef BETA_H
#define BETA_H

long square_sum(int n);

#endif
