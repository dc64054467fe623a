// RowResult: derived metrics (ratios, TFLOP/s, fraction of copy bandwidth)
// and the JSON line and progress line for one benchmark row.
#include "row_result.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace epigemm::bench {
namespace {

constexpr double kNaN = NAN;

double timed_ms(const TimingStats& t) { return t.runs > 0 ? t.median_ms : kNaN; }

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::string json_timing(const TimingStats& t) {
  if (t.runs == 0) return "null";
  return "{\"median_ms\":" + json_number(t.median_ms) + ",\"p10_ms\":" + json_number(t.p10_ms) +
         ",\"p90_ms\":" + json_number(t.p90_ms) + ",\"runs\":" + std::to_string(t.runs) + "}";
}

}  // namespace

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

double RowResult::ratio_gemm() const { return timed_ms(epigemm) / timed_ms(gemm); }
double RowResult::ratio_fused() const { return timed_ms(epigemm) / timed_ms(fused); }
double RowResult::tflops() const { return shape.flops() / (timed_ms(epigemm) * 1e-3) / 1e12; }
double RowResult::tflops_gemm() const { return shape.flops() / (timed_ms(gemm) * 1e-3) / 1e12; }

double RowResult::bandwidth_fraction() const {
  // Copy bandwidth counts bytes read plus written: 2 * weights / copy time.
  return (weight_bytes / timed_ms(epigemm)) / (2.0 * weight_bytes / timed_ms(copy));
}
double RowResult::bandwidth_fraction_gemm() const {
  return (weight_bytes / timed_ms(gemm)) / (2.0 * weight_bytes / timed_ms(copy));
}

std::string RowResult::to_json() const {
  std::ostringstream o;
  o << "{\"dtype\":" << json_string(dtype) << ",\"b_layout\":" << json_string(b_layout)
    << ",\"m\":" << shape.m << ",\"n\":" << shape.n << ",\"k\":" << shape.k
    << ",\"shape\":" << json_string(shape.label()) << ",\"epilogue\":" << json_string(epilogue)
    << ",\"operator\":" << json_string(op_name) << ",\"provider\":" << json_string(provider)
    << ",\"note\":" << json_string(note) << ",\"compile_s\":" << json_number(compile_s >= 0 ? compile_s : kNaN)
    << ",\"epigemm\":" << json_timing(epigemm) << ",\"gemm\":" << json_timing(gemm)
    << ",\"fused_name\":" << json_string(fused_name) << ",\"fused\":" << json_timing(fused)
    << ",\"gelu_reference\":" << json_timing(gelu_reference) << ",\"copy\":" << json_timing(copy)
    << ",\"ratio_gemm\":" << json_number(ratio_gemm())
    << ",\"ratio_fused\":" << json_number(ratio_fused()) << ",\"tflops\":" << json_number(tflops())
    << ",\"tflops_gemm\":" << json_number(tflops_gemm())
    << ",\"bw_fraction\":" << json_number(bandwidth_fraction())
    << ",\"bw_fraction_gemm\":" << json_number(bandwidth_fraction_gemm())
    << ",\"check_pass\":" << (check_pass ? "true" : "false") << ",\"check\":" << json_string(check)
    << ",\"anchor_pass\":" << (anchor_pass ? "true" : "false") << ",\"anchor_check\":" << json_string(anchor_check)
    << ",\"rel_error\":" << json_number(rel_error >= 0 ? rel_error : kNaN) << ",\"error\":" << json_string(error)
    << "}";
  return o.str();
}

std::string RowResult::to_line() const {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%-5s %-16s %-18s %-28s epigemm %8.4f ms  cuBLASLt %8.4f ms  x%.3f  %6.1f TFLOP/s",
                dtype.c_str(), shape.label().c_str(), epilogue.c_str(), op_name.c_str(), timed_ms(epigemm),
                timed_ms(gemm), ratio_gemm(), tflops());
  std::string line = buffer;
  if (fused.runs > 0) {
    std::snprintf(buffer, sizeof buffer, "  %s %.4f ms (x%.3f)", fused_name.c_str(), timed_ms(fused), ratio_fused());
    line += buffer;
  }
  if (gelu_reference.runs > 0) {
    std::snprintf(buffer, sizeof buffer, "  GELU_BIAS reference %.4f ms (x%.3f)", timed_ms(gelu_reference),
                  timed_ms(epigemm) / timed_ms(gelu_reference));
    line += buffer;
  }
  if (copy.runs > 0) {
    std::snprintf(buffer, sizeof buffer, "  bw %.2f of copy (cuBLASLt %.2f)", bandwidth_fraction(),
                  bandwidth_fraction_gemm());
    line += buffer;
  }
  line += "  " + std::string(check_pass ? "PASS" : "FAIL");
  if (!anchor_pass) line += " (anchor check FAIL)";
  if (!error.empty()) line += "  ERROR: " + error;
  if (!note.empty()) line += "  [" + note + "]";
  return line;
}

}  // namespace epigemm::bench
