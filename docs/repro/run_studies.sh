#!/bin/sh
# The studies of docs/REPRODUCIBILITY.md, in order; each writes
# docs/repro/<name>.{txt,json,png}.  One simulation at a time unless JOBS=n
# (the outputs do not depend on it); finished configurations are kept in
# docs/repro/cache.db (not committed), so an interrupted run resumes where it
# stopped.
# Usage: sh docs/repro/run_studies.sh [name ...]   (default: all, in this order)
#        DRY_RUN=1 sh docs/repro/run_studies.sh      (print the commands only)
set -e
cd "$(dirname "$0")/../.."
R=".venv/bin/collsim repro --jobs ${JOBS:-1} --db docs/repro/cache.db"
OUT=docs/repro
IN=scenarios/repro
ALGS=recursive_doubling,rabenseifner,reduce_bcast,node_aware,fixed_order,prerounded,prerounded:inner=rabenseifner
MC="--machines $IN/machine_multicore_64x8.toml"

study() {
    name=$1
    shift
    case " ${SELECTED:-all} " in *" all "*|*" $name "*) ;; *) return 0 ;; esac
    if [ -n "$DRY_RUN" ]; then
        echo "$R $* -o $OUT/$name"
        return 0
    fi
    echo "== $name: $*" >&2
    start=$(date +%s)
    # a study with failed configurations still writes its outputs (exit 1)
    $R "$@" -o "$OUT/$name" > /dev/null || echo "$name: some configurations failed" >&2
    echo "== $name: $(( $(date +%s) - start )) s" >&2
}
SELECTED="$*"

# 1. the done criterion on the 64 x 8 multicore machine: 1, 1Ki, 32Ki doubles at np = 512,
#    1Mi doubles at np = 64 (512 x 8 MiB buffers would exceed this machine's RAM)
study multicore_lognormal_np512 --coll allreduce --alg $ALGS $MC --mappings block,cyclic \
    --exposures 0,1,2,4,8 --np 512 --bytes 8,8KiB,256KiB --dist lognormal
study multicore_lognormal_np64_1Mi --coll allreduce --alg $ALGS $MC --mappings block,cyclic \
    --exposures 0,1,2,4,8 --np 64 --bytes 8MiB --dist lognormal
#    why node_aware agrees with recursive doubling on aligned exposures: exposures of 3 and 6
study multicore_lognormal_unaligned --coll allreduce --alg node_aware,fixed_order,recursive_doubling $MC \
    --mappings block,cyclic --exposures 1,2,3,4,6,8 --np 512,64 --bytes 8,8KiB,256KiB \
    --dist lognormal
#    at 1Mi doubles and np = 64 the cyclic mapping puts one rank on each socket host, so
#    nothing breaks the alignment either: unaligned exposures and a random placement do
study multicore_lognormal_np64_1Mi_unaligned --coll allreduce --alg node_aware,fixed_order $MC \
    --mappings block,cyclic,random:1 --exposures 0,1,2,3,4,6,8 --np 64 --bytes 8MiB \
    --dist lognormal
# 2. every decomposition of the same data: the inputs of 512 ranks on 64..512 processes,
#    of 64 ranks on 8..64 processes at 1Mi doubles
study decompositions_512 --coll allreduce --alg recursive_doubling,node_aware,fixed_order,prerounded $MC \
    --mappings block,cyclic --exposures 0,8 --np 64,128,256,512 --inputs 512 \
    --bytes 8,8KiB,256KiB --dist lognormal
study decompositions_64_1Mi --coll allreduce --alg recursive_doubling,node_aware,fixed_order,prerounded $MC \
    --mappings block,cyclic --exposures 0,8 --np 8,16,32,64 --inputs 64 --bytes 8MiB \
    --dist lognormal
#    every platform family, same np and data
study families_np512 --coll allreduce --alg recursive_doubling,node_aware,fixed_order,prerounded \
    --machines $IN/machines_64x8.toml --mappings block,cyclic --exposures 0,1,2,4,8 \
    --np 512 --bytes 8,8KiB,256KiB --dist lognormal
study families_np64_1Mi --coll allreduce --alg recursive_doubling,node_aware,fixed_order,prerounded \
    --machines $IN/machines_64x8.toml --mappings block,cyclic --exposures 0,8 \
    --np 64 --bytes 8MiB --dist lognormal
# 3. ill-conditioned data (exact sums near zero after heavy cancellation)
study multicore_illcond --coll allreduce --alg $ALGS $MC --mappings block,cyclic --exposures 0,1,2,4,8 \
    --np 512,64 --bytes 8,8KiB,256KiB --dist illcond
# 4. the price on the seeds' machines: seed 000's 320 x 8 cluster and seed 003's Hydra
PRICE=$ALGS,prerounded:inner=node_aware,prerounded:inner=reduce_bcast
study price_seed000 --coll allreduce --alg $PRICE --platforms seed000_qdr320 --np 64,512 \
    --bytes 8,8KiB,256KiB --dist lognormal
study price_seed000_np64 --coll allreduce --alg $PRICE,ring --platforms seed000_qdr320 --np 64 \
    --bytes 8MiB --dist lognormal
study price_hydra --coll allreduce --alg $PRICE --platforms seed003_hydra --np 64,512 \
    --bytes 8,8KiB,256KiB --dist lognormal
study price_hydra_np64 --coll allreduce --alg $PRICE,ring --platforms seed003_hydra --np 64 \
    --bytes 8MiB --dist lognormal

# 5. reduce: the same questions for MPI_Reduce (root 0), the collective of seed 000's Fig. 2.
#    MPICH's topology-aware reduce combines the root node's other ranks after the other
#    nodes' result, so its order changes with every exposure and mapping (the allreduce's
#    does not on aligned power-of-two nodes; see docs/REPRODUCIBILITY.md)
#    prerounded:inner=rabenseifner:outer=rabenseifner: the bound's allreduce is rabenseifner too
#    (the reduce's default is recursive doubling, which moves the whole vector lg p times)
RALGS=binomial,rabenseifner,in_order_binary,node_aware,fixed_order,prerounded
RALGS=$RALGS,prerounded:inner=rabenseifner:outer=rabenseifner
study reduce_multicore_lognormal_np512 --coll reduce --alg $RALGS $MC --mappings block,cyclic \
    --exposures 0,1,2,4,8 --np 512 --bytes 8,8KiB,256KiB --dist lognormal
study reduce_multicore_lognormal_np64_1Mi --coll reduce --alg $RALGS $MC \
    --mappings block,cyclic --exposures 0,1,2,4,8 --np 64 --bytes 8MiB --dist lognormal
study reduce_decompositions_512 --coll reduce --alg binomial,node_aware,fixed_order,prerounded \
    $MC --mappings block,cyclic --exposures 0,8 --np 64,128,256,512 --inputs 512 \
    --bytes 8,8KiB,256KiB --dist lognormal
study reduce_decompositions_64_1Mi --coll reduce --alg binomial,node_aware,fixed_order,prerounded \
    $MC --mappings block,cyclic --exposures 0,8 --np 8,16,32,64 --inputs 64 --bytes 8MiB \
    --dist lognormal
study reduce_families_np512 --coll reduce --alg binomial,node_aware,fixed_order,prerounded \
    --machines $IN/machines_64x8.toml --mappings block,cyclic --exposures 0,1,2,4,8 \
    --np 512 --bytes 8,8KiB,256KiB --dist lognormal
study reduce_multicore_illcond --coll reduce --alg $RALGS $MC --mappings block,cyclic \
    --exposures 0,1,2,4,8 --np 512,64 --bytes 8,8KiB,256KiB --dist illcond
RPRICE=$RALGS,prerounded:inner=node_aware,prerounded:inner=node_aware:outer=rabenseifner
study reduce_price_seed000 --coll reduce --alg $RPRICE --platforms seed000_qdr320 \
    --np 64,512 --bytes 8,8KiB,256KiB --dist lognormal
study reduce_price_seed000_np64 --coll reduce --alg $RPRICE,ring --platforms seed000_qdr320 \
    --np 64 --bytes 8MiB --dist lognormal
study reduce_price_hydra --coll reduce --alg $RPRICE --platforms seed003_hydra --np 64,512 \
    --bytes 8,8KiB,256KiB --dist lognormal
study reduce_price_hydra_np64 --coll reduce --alg $RPRICE,ring --platforms seed003_hydra \
    --np 64 --bytes 8MiB --dist lognormal

# 7. the other reductions (issue 26): MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan.  None
#    looks at nodes, so a configuration is a mapping: block, cyclic and random placements
#    of the same ranks must give the same bits (the results depend on the ranks only)
study mappings_reduce_scatter --coll reduce_scatter \
    --alg reduce_then_scatter,ring,pairwise,recursive_halving,butterfly,recursive_doubling $MC \
    --mappings block,cyclic,random:1 --np 512,64,13 --bytes 8,8KiB --dist lognormal
study mappings_scan --coll scan --alg linear,recursive_doubling $MC \
    --mappings block,cyclic,random:1 --np 512,64,13 --bytes 8,8KiB,256KiB --dist lognormal
study mappings_exscan --coll exscan --alg linear,recursive_doubling $MC \
    --mappings block,cyclic,random:1 --np 512,64,13 --bytes 8,8KiB,256KiB --dist lognormal
