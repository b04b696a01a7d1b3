#!/usr/bin/env bash
# call FF: ECDSA's pipeline at steps of 2^18, 2^19 and 2^20 (BenchmarkVerifyGPU, engine alone and Verify),
# GOMAXPROCS 16 and 12; an nsys timeline of P-224's engine-alone pipeline where nsys exists.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wFF; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
for f in .dev/c23/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x .dev/c23/*
B=.dev/c23
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
timeout 260 $B/ecdsa.test -test.run XX -test.bench 'VerifyGPU' -test.benchtime 3x -test.cpu 16,12 > $O/gpubench.txt 2>&1; echo "gpubench rc $?"; grep -E "^Benchmark" $O/gpubench.txt | awk '{print $1, $(NF-1), $NF}'
save
echo "t $(( $(date +%s) - T0 ))"
if [ -n "${NSYS:-}" ]; then
  timeout 150 $NSYS profile -t cuda -o $O/p224-engine --force-overwrite true $B/ecdsa.test -test.run XX -test.bench 'VerifyGPU/P-224/(kP|engine/step=262144)$' -test.benchtime 2x -test.cpu 16 > $O/nsys.txt 2>&1; echo "nsys rc $?"
  timeout 100 $NSYS stats -r cuda_gpu_kern_sum,cuda_gpu_mem_time_sum --format csv -o $O/p224 $O/p224-engine.nsys-rep > $O/nsys-stats.txt 2>&1; echo "stats rc $?"
  timeout 100 $NSYS stats -r cuda_gpu_trace --format csv -o $O/p224 $O/p224-engine.nsys-rep >> $O/nsys-stats.txt 2>&1; echo "trace rc $?"
  rm -f $O/*.sqlite; xz -T4 $O/p224_cuda_gpu_trace.csv 2>/dev/null; ls -la $O
fi
save
echo "t $(( $(date +%s) - T0 ))"
