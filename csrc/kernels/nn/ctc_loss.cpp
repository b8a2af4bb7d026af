// CTC loss (ctc_loss.h): the batch elements split over the cores; each runs
// its alpha (forward) or beta (backward) recursion over time sequentially,
// the states of one time step depending only on the previous step's.
// The backward keeps two rows of beta instead of CPU's [N, T, states] tensor:
// each row is folded into the gradient as soon as it is known.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/nn/ctc_loss.h"
#include "kernels/index/index.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename T>
constexpr T kCtcNegInf = -std::numeric_limits<T>::infinity();

// std::exp(x - m). exp(0) = 1 and exp(-inf) = 0 exactly, so those calls are
// skipped without changing a bit; a non-finite m keeps CPU's NaN/inf arithmetic.
template <typename T>
inline T ctc_exp_shift(T x, T m) {
  if (std::isfinite(m)) {
    if (x == m) return T(1);
    if (x == kCtcNegInf<T>) return T(0);
  }
  return std::exp(x - m);
}

// std::log(s) with the exact cases log(0) = -inf and log(1) = 0 skipped.
template <typename T>
inline T ctc_log(T s) {
  if (s == T(0)) return kCtcNegInf<T>;
  if (s == T(1)) return T(0);
  return std::log(s);
}

int64_t ctc_label(const CtcLossDesc& d, int64_t b, int64_t i) {
  const int64_t at = d.target_offsets[b] + i * d.target_stride;
  return d.target_dtype == DType::kInt32 ? static_cast<const int32_t*>(d.targets)[at]
                                         : static_cast<const int64_t*>(d.targets)[at];
}

// Every label a recursion will read must index a class: CPU does not check
// and reads whatever lies there; the device refuses instead.
void ctc_check_labels(const CtcLossDesc& d) {
  for (int64_t b = 0; b < d.batch; ++b) {
    if (d.input_lengths[b] == 0) continue;  // no time step reads a label
    for (int64_t i = 0; i < d.target_lengths[b]; ++i) {
      const int64_t label = ctc_label(d, b, i);
      if (label < 0 || label >= d.labels) {
        throw_data_error("ctc_loss: target label " + std::to_string(label) + " (batch element " +
                         std::to_string(b) + ", position " + std::to_string(i) + ") is out of range for " +
                         std::to_string(d.labels) + " classes");
      }
    }
  }
}

// The extended target l' of element b: blank, l[0], blank, l[1], ..., blank.
void ctc_extended_target(const CtcLossDesc& d, int64_t b, std::vector<int64_t>& primes) {
  const int64_t states = 2 * d.target_lengths[b] + 1;
  primes.resize(static_cast<size_t>(states));
  for (int64_t s = 0; s < states; ++s) primes[s] = (s % 2 == 0) ? d.blank : ctc_label(d, b, s / 2);
}

int64_t ctc_grain(const CtcLossDesc& d) {
  // About 32k state updates per task: short sequences are batched together.
  const int64_t per_element = std::max<int64_t>(1, d.max_input_length * d.states);
  return std::max<int64_t>(1, 32768 / per_element);
}

template <typename T>
void ctc_forward_typed(const CtcLossDesc& d) {
  const T* log_probs = static_cast<const T*>(d.log_probs);
  T* log_alpha = static_cast<T*>(d.log_alpha);
  T* nll = static_cast<T*>(d.neg_log_likelihood);
  const int64_t S = d.states, lp_t = d.lp_stride[0], lp_c = d.lp_stride[2];
  runtime::parallel_for(0, d.batch, ctc_grain(d), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> primes;
    for (int64_t b = begin; b < end; ++b) {
      const int64_t input_length = d.input_lengths[b], target_length = d.target_lengths[b];
      const int64_t states = 2 * target_length + 1;
      const T* lp = log_probs + b * d.lp_stride[1];
      T* la = log_alpha + b * d.max_input_length * S;
      std::fill(la, la + d.max_input_length * S, kCtcNegInf<T>);
      if (input_length == 0) {
        const T log_likelihood = target_length == 0 ? T(0) : kCtcNegInf<T>;
        nll[b * d.nll_stride] = -log_likelihood;
        continue;
      }
      ctc_extended_target(d, b, primes);
      la[0] = lp[lp_c * d.blank];
      if (target_length > 0) la[1] = lp[lp_c * primes[1]];
      for (int64_t t = 1; t < input_length; ++t) {
        const T* prev = la + (t - 1) * S;
        T* cur = la + t * S;
        const T* lpt = lp + t * lp_t;
        for (int64_t s = 0; s < states; ++s) {
          const int64_t c = primes[s];
          // CPU's three summands and their maximum, in its order.
          const T la1 = prev[s];
          T lamax = la1;
          T la2 = kCtcNegInf<T>, la3 = kCtcNegInf<T>;
          if (s > 0) {
            la2 = prev[s - 1];
            if (la2 > lamax) lamax = la2;
          }
          if (s > 1 && primes[s - 2] != c) {
            la3 = prev[s - 2];
            if (la3 > lamax) lamax = la3;
          }
          if (lamax == kCtcNegInf<T>) lamax = 0;
          cur[s] = ctc_log(ctc_exp_shift(la1, lamax) + ctc_exp_shift(la2, lamax) + ctc_exp_shift(la3, lamax)) +
                   lamax + lpt[lp_c * c];
        }
      }
      const T* last = la + (input_length - 1) * S;
      if (target_length == 0) {
        nll[b * d.nll_stride] = -last[0];
      } else {
        const T l1 = last[2 * target_length], l2 = last[2 * target_length - 1];
        T m = std::max(l1, l2);
        m = (m == kCtcNegInf<T>) ? T(0) : m;
        const T log_likelihood = std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m;
        nll[b * d.nll_stride] = -log_likelihood;
      }
    }
  });
}

template <typename T>
void ctc_backward_typed(const CtcLossDesc& d) {
  const T* log_probs = static_cast<const T*>(d.log_probs);
  const T* log_alpha = static_cast<const T*>(d.log_alpha);
  const T* nll_all = static_cast<const T*>(d.neg_log_likelihood);
  const T* grad_out = static_cast<const T*>(d.grad_out);
  T* grad = static_cast<T*>(d.grad);
  const int64_t S = d.states, C = d.labels, N = d.batch;
  const int64_t lp_t = d.lp_stride[0], lp_c = d.lp_stride[2];
  const int64_t la_t = d.la_stride[1], la_s = d.la_stride[2];
  runtime::parallel_for(0, N, ctc_grain(d), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> primes;
    std::vector<T> beta_rows(2 * static_cast<size_t>(S));
    for (int64_t b = begin; b < end; ++b) {
      T* g = grad + b * C;  // g[t * N * C + c]
      const auto row = [&](int64_t t) { return g + t * N * C; };
      const T nll = nll_all[b * d.nll_stride];
      if (d.zero_infinity && nll == std::numeric_limits<T>::infinity()) {
        for (int64_t t = 0; t < d.max_input_length; ++t) std::fill(row(t), row(t) + C, T(0));
        continue;
      }
      const int64_t input_length = d.input_lengths[b], target_length = d.target_lengths[b];
      const T* lp = log_probs + b * d.lp_stride[1];
      const T* la = log_alpha + b * d.la_stride[0];  // la[t * la_t + s * la_s]
      // The gradient rows collect log(sum of alpha * beta) per class first.
      for (int64_t t = 0; t < input_length; ++t) std::fill(row(t), row(t) + C, kCtcNegInf<T>);
      ctc_extended_target(d, b, primes);
      T* next = beta_rows.data();      // beta at t + 1
      T* cur = beta_rows.data() + S;   // beta at t
      if (input_length > 0) {
        const int64_t t = input_length - 1;
        std::fill(next, next + 2 * target_length + 1, kCtcNegInf<T>);
        next[2 * target_length] = lp[t * lp_t + lp_c * d.blank];
        row(t)[d.blank] = la[t * la_t + 2 * target_length * la_s] + next[2 * target_length];
        if (target_length > 0) {
          const int64_t c = primes[2 * target_length - 1];
          next[2 * target_length - 1] = lp[t * lp_t + lp_c * c];
          row(t)[c] = la[t * la_t + (2 * target_length - 1) * la_s] + next[2 * target_length - 1];
        }
      }
      for (int64_t t = input_length - 2; t >= 0; --t) {
        const T* lpt = lp + t * lp_t;
        const T* lat = la + t * la_t;
        T* gt = row(t);
        for (int64_t s = 2 * target_length; s >= 0; --s) {
          const int64_t c = primes[s];
          const T lb1 = next[s];
          T lbmax = lb1;
          T lb2 = kCtcNegInf<T>, lb3 = kCtcNegInf<T>;
          if (s < 2 * target_length) {
            lb2 = next[s + 1];
            if (lb2 > lbmax) lbmax = lb2;
          }
          if (s < 2 * target_length - 1 && primes[s + 2] != c) {
            lb3 = next[s + 2];
            if (lb3 > lbmax) lbmax = lb3;
          }
          if (lbmax == kCtcNegInf<T>) lbmax = 0;
          cur[s] = ctc_log(ctc_exp_shift(lb1, lbmax) + ctc_exp_shift(lb2, lbmax) + ctc_exp_shift(lb3, lbmax)) +
                   lbmax + lpt[lp_c * c];
          // gt[c] "log+=" alpha * beta, in CPU's order of s.
          const T log_alpha_beta = lat[s * la_s] + cur[s];
          T& lcab = gt[c];
          if (lcab == kCtcNegInf<T>) {
            lcab = log_alpha_beta;
          } else {
            const T m = std::max(lcab, log_alpha_beta);
            lcab = ctc_log(ctc_exp_shift(lcab, m) + ctc_exp_shift(log_alpha_beta, m)) + m;
          }
        }
        std::swap(cur, next);
      }
      const T gr = grad_out[b * d.grad_out_stride];
      const bool finite_nll = std::isfinite(nll);
      for (int64_t t = 0; t < input_length; ++t) {
        const T* lpt = lp + t * lp_t;
        T* gt = row(t);
        for (int64_t c = 0; c < C; ++c) {
          const T l = lpt[lp_c * c];
          const T collected = gt[c];
          // No path through (t, c): exp(-inf + nll - lp) is exactly 0.
          if (collected == kCtcNegInf<T> && finite_nll && std::isfinite(l)) {
            gt[c] = std::exp(l) * gr;
          } else {
            gt[c] = (std::exp(l) - std::exp(collected + nll - l)) * gr;
          }
        }
      }
      for (int64_t t = input_length; t < d.max_input_length; ++t) std::fill(row(t), row(t) + C, T(0));
    }
  });
}

}  // namespace

void ctc_loss_forward(const CtcLossDesc& d) {
  ctc_check_labels(d);
  if (d.dtype == DType::kFloat64) {
    ctc_forward_typed<double>(d);
  } else {
    ctc_forward_typed<float>(d);
  }
}

void ctc_loss_backward(const CtcLossDesc& d) {
  ctc_check_labels(d);
  if (d.dtype == DType::kFloat64) {
    ctc_backward_typed<double>(d);
  } else {
    ctc_backward_typed<float>(d);
  }
}

}  // namespace torch_tpu::kernels
