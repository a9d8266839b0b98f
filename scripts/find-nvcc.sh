# Sourced by the build scripts: makes nvcc visible to CMake when the CUDA
# toolkit is installed outside PATH (its usual place is /usr/local/cuda).
if ! command -v nvcc >/dev/null 2>&1 && [[ -z "${CUDACXX:-}" ]]; then
  for candidate in /usr/local/cuda/bin/nvcc /usr/lib/nvidia-cuda-toolkit/bin/nvcc; do
    if [[ -x "$candidate" ]]; then export CUDACXX="$candidate"; break; fi
  done
fi
