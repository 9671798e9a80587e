/*
 * native_grid.c: the libraries' default choices of algorithms/common/native.c
 * for many calls at once, for tests/test_native.py (collbench --native-choice
 * asks one process count per start; a grid of thousands of calls would take
 * minutes that way).  Built with the real MPI's compiler against
 * build-mpi/libcollsim_algorithms.a; it makes no MPI call.
 *
 * Reads lines "LIBRARY COLLECTIVE NP BYTES COMMUTATIVE BUILTIN ID" (openmpi
 * or mpich; BYTES one block, in 4-byte elements; COMMUTATIVE and BUILTIN 0 or
 * 1) and prints for each "NAME ID": the library's name and Open MPI id (0
 * for MPICH) of the algorithm the library runs for the call by its default
 * choice (collsim_native_choose), or with ID > 0 when told to run Open MPI's
 * algorithm ID (collsim_native_forced: its fallbacks; "refused 0" where Open
 * MPI fails the call).
 */
#include "collsim.h"
#include "common/native.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    char library[16], collective[32];
    int np, commutative, builtin, id;
    long long bytes;
    while (scanf("%15s %31s %d %lld %d %d %d", library, collective, &np, &bytes, &commutative,
                 &builtin, &id) == 7) {
        const collsim_collective_info *info = collsim_find_collective(collective);
        if (info == NULL) {
            fprintf(stderr, "native_grid: unknown collective %s\n", collective);
            return 2;
        }
        const collsim_native_call call = {.collective = info->collective,
                                          .comm_size = np,
                                          .count = bytes / 4,
                                          .type_size_bytes = 4,
                                          .commutative = commutative,
                                          .builtin_op = builtin};
        const collsim_native_library lib =
            strcmp(library, "openmpi") == 0 ? COLLSIM_NATIVE_OPENMPI : COLLSIM_NATIVE_MPICH;
        const collsim_native_entry *e = NULL;
        if (id == 0) {
            e = collsim_native_choose(lib, &call);
        } else {
            size_t n;
            const collsim_native_entry *all = collsim_native_entries(&n);
            for (size_t i = 0; i < n; i++)
                if (all[i].library == lib && all[i].collective == call.collective &&
                    all[i].id == id)
                    e = collsim_native_forced(&all[i], &call);
        }
        if (e == NULL)
            printf("refused 0\n");
        else
            printf("%s %d\n", e->library_name, e->id);
    }
    return 0;
}
