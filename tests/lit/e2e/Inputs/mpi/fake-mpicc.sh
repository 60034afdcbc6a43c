#!/bin/sh
# fake-mpicc.sh: stands in for OpenMPI's mpicc in mpi-cc.test (--showme).
case "$1" in
--showme:compile) echo "-I/fake/mpi/include -DFAKE_MPI" ;;
--showme:link) echo "-L/fake/mpi/lib -lmpi" ;;
*) exit 1 ;;
esac
