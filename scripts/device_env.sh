# scripts/device_env.sh — sourced (not run) by the device scripts (gpu_check.sh, dev_*.sh): finds
# nvcc / CUDA_HOME and the anchor libraries the CLI loads with dlopen, and exports them:
#   IGEMM_CUDNN_LIB     cuDNN for `bench --vs cudnn`: the pip wheel next to PyTorch (its directory
#                       also prepended to LD_LIBRARY_PATH), else whatever it already names
#   IGEMM_CUBLASLT_LIB  cuBLASLt for `bench --vs cublas`: the pip wheel beside PyTorch (what torch
#                       uses), else the toolkit's
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
CUDNN_DIR=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
[ -n "$CUDNN_DIR" ] && [ -f "$CUDNN_DIR/libcudnn.so.9" ] && export IGEMM_CUDNN_LIB=$CUDNN_DIR/libcudnn.so.9 && export LD_LIBRARY_PATH=$CUDNN_DIR:${LD_LIBRARY_PATH:-}
CUBLAS_DIR=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)
for f in "$CUBLAS_DIR"/libcublasLt.so.* "$CUDA_HOME"/lib64/libcublasLt.so.*; do
  [ -f "$f" ] && [ -z "${IGEMM_CUBLASLT_LIB:-}" ] && export IGEMM_CUBLASLT_LIB=$f
done
