/*
 * conv2d_op.cpp — the CUDA kernel of torch.ops.igemm.conv2d in C++ (built by `make torchop` where
 * torch imports; loaded by python/igemm/_torch.py, which otherwise registers its Python kernel).
 *
 * Why: a Python kernel behind torch's dispatcher pays the boxing of the op's 14 arguments into
 * Python objects on every call (~6 us on top of igemm.conv2d's 10 us: docs/decisions.md
 * "host-cost"). Here a call whose signature was seen before runs without Python:
 *   signature (sizes, dtypes, devices, options of the arguments; the same fields as _torch.py's
 *   prepared calls) -> a table entry {plan handle, output sizes / strides / dtype, device}, put
 *   there by the Python kernel through igemm::_cpp_register_call after it planned the call;
 *   per call: channels_last layout, 16-byte alignment, gradients and the scale / bias vectors
 *   are checked, the plan's device is made current (anything off takes the Python kernel), y =
 *   at::empty_strided, igemm_plan_run (the pointer _torch.py hands over with _cpp_set_run, from the
 *   library it loaded) on the current CUDA stream.
 * Anything else (first call of a signature, a layout or alignment the plan cannot take, a failed
 * launch) goes to the Python kernel, registered as igemm::conv2d_py: it runs the full path, raises
 * the library's errors, and registers the signature. Entries only hold plan handles that
 * _torch.py's plan cache keeps alive; clear_plan_cache empties this table first
 * (igemm::_cpp_clear_calls).
 */
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

typedef int (*igemm_run_fn)(void *plan, const void *x, const void *w, const float *scale, const float *bias,
                            const void *residual, void *y, void *stream);

struct Entry {
    int64_t handle; /* igemm_plan_t *, 0 for an empty output */
    std::vector<int64_t> shape, strides;
    at::ScalarType od;
    int64_t dev;
};

std::shared_mutex g_mu;
std::unordered_map<std::string, std::shared_ptr<const Entry>> g_table;
igemm_run_fn g_run = nullptr;
std::atomic<int64_t> g_hits{0}; /* calls served from the table (the tests read it) */
constexpr size_t kMaxEntries = 4096; /* as _torch.py's _CALLS_MAX: emptied when full */

using OptT = c10::optional<at::Tensor>;
using OptS = c10::optional<at::ScalarType>;

void put_i(std::string &k, int64_t v) { k.append(reinterpret_cast<const char *>(&v), sizeof v); }
void put_d(std::string &k, double v) { k.append(reinterpret_cast<const char *>(&v), sizeof v); }
void put_list(std::string &k, c10::IntArrayRef a)
{
    put_i(k, (int64_t)a.size());
    for (int64_t v : a) put_i(k, v);
}
void put_tensor(std::string &k, const at::Tensor &t)
{
    put_i(k, (int64_t)t.scalar_type());
    put_i(k, t.get_device());
    put_list(k, t.sizes());
}
void put_opt(std::string &k, const OptT &t)
{
    if (!t.has_value() || !t->defined()) {
        put_i(k, -1);
        return;
    }
    put_i(k, 1);
    put_tensor(k, *t);
}

std::string make_key(const at::Tensor &x, const at::Tensor &w, const OptT &bias, const OptT &scale, const OptT &residual,
                     c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups,
                     double alpha, double beta, c10::string_view activation, double act_param, OptS out_dtype)
{
    std::string k;
    k.reserve(320);
    put_tensor(k, x);
    put_tensor(k, w);
    put_opt(k, bias);
    put_opt(k, scale);
    put_opt(k, residual);
    put_list(k, stride);
    put_list(k, padding);
    put_list(k, dilation);
    put_i(k, groups);
    put_d(k, alpha);
    put_d(k, beta);
    put_i(k, (int64_t)activation.size());
    k.append(activation.data(), activation.size());
    put_d(k, act_param);
    put_i(k, out_dtype.has_value() ? (int64_t)*out_dtype : -1);
    return k;
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

/* A float32 vector the library can read in place: contiguous, 16-byte aligned, no gradient. */
bool vec_ptr(const OptT &t, const float **p)
{
    *p = nullptr;
    if (!t.has_value() || !t->defined()) return true;
    if (t->scalar_type() != at::kFloat || !t->is_contiguous() || (t->requires_grad() && at::GradMode::is_enabled()))
        return false;
    *p = static_cast<const float *>(t->data_ptr());
    return aligned16(*p);
}

at::Tensor call_python(const at::Tensor &x, const at::Tensor &w, const OptT &bias, const OptT &scale,
                       const OptT &residual, c10::IntArrayRef stride, c10::IntArrayRef padding,
                       c10::IntArrayRef dilation, int64_t groups, double alpha, double beta,
                       c10::string_view activation, double act_param, OptS out_dtype)
{
    static const auto op = c10::Dispatcher::singleton()
                               .findSchemaOrThrow("igemm::conv2d_py", "")
                               .typed<at::Tensor(const at::Tensor &, const at::Tensor &, const OptT &, const OptT &,
                                                 const OptT &, c10::IntArrayRef, c10::IntArrayRef, c10::IntArrayRef,
                                                 int64_t, double, double, c10::string_view, double, OptS)>();
    return op.call(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta, activation, act_param,
                   out_dtype);
}

at::Tensor conv2d_cuda(const at::Tensor &x, const at::Tensor &w, const OptT &bias, const OptT &scale,
                       const OptT &residual, c10::IntArrayRef stride, c10::IntArrayRef padding,
                       c10::IntArrayRef dilation, int64_t groups, double alpha, double beta,
                       c10::string_view activation, double act_param, OptS out_dtype)
{
    do {
        if (g_run == nullptr) break;
        if (at::GradMode::is_enabled() && (x.requires_grad() || w.requires_grad())) break;
        std::shared_ptr<const Entry> e;
        {
            const std::string k = make_key(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha,
                                           beta, activation, act_param, out_dtype);
            std::shared_lock<std::shared_mutex> lock(g_mu);
            const auto it = g_table.find(k);
            if (it == g_table.end()) break;
            e = it->second;
        }
        if (!x.is_contiguous(at::MemoryFormat::ChannelsLast) || !w.is_contiguous(at::MemoryFormat::ChannelsLast))
            break;
        const void *xp = x.data_ptr(), *wp = w.data_ptr();
        if (!aligned16(xp) || !aligned16(wp)) break;
        const float *sp = nullptr, *bp = nullptr;
        if (!vec_ptr(scale, &sp) || !vec_ptr(bias, &bp)) break;
        const void *rp = nullptr;
        if (residual.has_value() && residual->defined()) {
            const at::Tensor &r = *residual;
            if (!r.is_contiguous(at::MemoryFormat::ChannelsLast) || (r.requires_grad() && at::GradMode::is_enabled()))
                break;
            rp = r.data_ptr();
            if (!aligned16(rp)) break;
        }
        /* the plan's device current for the launch (a tensor on cuda:1 while cuda:0 is current) */
        c10::cuda::OptionalCUDAGuard guard;
        if ((int64_t)c10::cuda::current_device() != e->dev) guard.set_index((c10::DeviceIndex)e->dev);
        at::Tensor y = at::empty_strided(e->shape, e->strides, x.options().dtype(e->od));
        if (e->handle == 0) return y;
        void *stream = c10::cuda::getCurrentCUDAStream((c10::DeviceIndex)e->dev).stream();
        if (g_run(reinterpret_cast<void *>(e->handle), xp, wp, sp, bp, rp, y.data_ptr(), stream) != 0)
            break; /* (the library enqueued nothing) the Python kernel raises its error */
        g_hits.fetch_add(1, std::memory_order_relaxed);
        return y;
    } while (false);
    return call_python(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta, activation,
                       act_param, out_dtype);
}

void register_call(const at::Tensor &x, const at::Tensor &w, const OptT &bias, const OptT &scale, const OptT &residual,
                   c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups,
                   double alpha, double beta, c10::string_view activation, double act_param, OptS out_dtype,
                   int64_t handle, c10::IntArrayRef shape, c10::IntArrayRef strides, at::ScalarType od, int64_t dev)
{
    auto e = std::make_shared<Entry>();
    e->handle = handle;
    e->shape.assign(shape.begin(), shape.end());
    e->strides.assign(strides.begin(), strides.end());
    e->od = od;
    e->dev = dev;
    std::string k = make_key(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta, activation,
                             act_param, out_dtype);
    std::unique_lock<std::shared_mutex> lock(g_mu);
    if (g_table.size() >= kMaxEntries) g_table.clear();
    g_table[std::move(k)] = std::move(e);
}

void set_run(int64_t fn) { g_run = reinterpret_cast<igemm_run_fn>(fn); }

void clear_calls()
{
    std::unique_lock<std::shared_mutex> lock(g_mu);
    g_table.clear();
}

int64_t table_hits() { return g_hits.load(std::memory_order_relaxed); }

int64_t calls_size()
{
    std::shared_lock<std::shared_mutex> lock(g_mu);
    return (int64_t)g_table.size();
}

} // namespace

/* The op igemm::conv2d and its Python kernel's op igemm::conv2d_py are defined by _torch.py (its
 * torch.library.Library); this fragment adds the table's ops and the CUDA kernel of conv2d. */
TORCH_LIBRARY_FRAGMENT(igemm, m)
{
    m.def("_cpp_register_call(Tensor x, Tensor w, Tensor? bias, Tensor? scale, Tensor? residual, int[] stride, "
          "int[] padding, int[] dilation, int groups, float alpha, float beta, str activation, float act_param, "
          "ScalarType? out_dtype, int handle, int[] shape, int[] strides, ScalarType od, int dev) -> ()",
          &register_call);
    m.def("_cpp_set_run(int fn) -> ()", &set_run);
    m.def("_cpp_clear_calls() -> ()", &clear_calls);
    m.def("_cpp_calls_size() -> int", &calls_size);
    m.def("_cpp_table_hits() -> int", &table_hits);
}

TORCH_LIBRARY_IMPL(igemm, CUDA, m) { m.impl("conv2d", &conv2d_cuda); }
